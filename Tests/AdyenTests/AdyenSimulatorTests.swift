import AdyenSimulator
@_spi(AdapterSupport) import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import Testing

@Suite("Adyen simulator over raw HTTP", .timeLimit(.minutes(5)))
struct AdyenSimulatorTests {
    typealias Seed = AdyenSimulator.Seed
    typealias Keys = AdyenSimulator.Credentials

    @Test("missing, wrong and Basic credentials; RestServiceError shape of the 401")
    func authentication() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let missing = try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)", apiKey: nil)
            #expect(missing.status == 401)
            #expect(missing.json?["type"]?.stringValue == "https://docs.adyen.com/errors/security/unauthorized")
            #expect(missing.json?["title"]?.stringValue == "Unauthorized")
            #expect(missing.json?["status"] == .number(401))
            #expect(missing.json?["detail"]?.stringValue == "Not authorized to access this service.")
            #expect(missing.errorCode == "00_401")
            #expect(missing.header("Content-Type")?.hasPrefix("application/json") == true)

            let wrong = try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)", apiKey: "AQE-wrong")
            #expect(wrong.status == 401)
            #expect(wrong.errorCode == "00_401")

            let basic = "Basic " + Data("\(Keys.webServiceUser):\(Keys.webServicePassword)".utf8).base64EncodedString()
            let viaBasic = try await raw.send(
                .get, "/paymentInstruments/\(Seed.activeVisaID)", apiKey: nil, headers: [("Authorization", basic)])
            #expect(viaBasic.status == 200)
            let badBasic = "Basic " + Data("\(Keys.webServiceUser):nope".utf8).base64EncodedString()
            #expect(
                try await raw.send(
                    .get, "/paymentInstruments/\(Seed.activeVisaID)", apiKey: nil,
                    headers: [("Authorization", badBasic)]
                ).status == 401)

            #expect(
                handle.journal.entries().allSatisfy {
                    $0.header("x-api-key") == nil || $0.header("x-api-key") == "<masked>"
                })
        }
    }

    @Test("the key without the activation-data role gets 403 00_403 on both activation endpoints only")
    func roleLessKey() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let key = Keys.apiKeyWithoutActivationRole
            #expect(try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)", apiKey: key).status == 200)
            #expect(
                try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)/networkTokens", apiKey: key).status
                    == 200)
            let get = try await raw.send(
                .get, "/paymentInstruments/\(Seed.activeVisaID)/networkTokenActivationData", apiKey: key)
            #expect(get.status == 403)
            #expect(get.errorCode == "00_403")
            #expect(get.json?["title"]?.stringValue == "Forbidden")
            let post = try await raw.send(
                .post, "/paymentInstruments/\(Seed.activeVisaID)/networkTokenActivationData", apiKey: key,
                body: raw.json("{\"sdkOutput\":\"AAEC\"}"))
            #expect(post.status == 403)
            #expect(post.errorCode == "00_403")
        }
    }

    @Test("seeded payment instruments in every status; a bank account; unknown ids are 404")
    func instruments() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let expected: [(String, String, String?, String)] = [
                (Seed.activeVisaID, "active", nil, "visa"), (Seed.activeMastercardID, "active", nil, "mc"),
                (Seed.inactiveMastercardID, "inactive", nil, "mc"),
                (Seed.suspendedVisaID, "suspended", "suspectedFraud", "visa"),
                (Seed.closedMastercardID, "closed", "lost", "mc"),
            ]
            for (id, status, reason, brand) in expected {
                let reply = try await raw.send(.get, "/paymentInstruments/\(id)")
                #expect(reply.status == 200)
                #expect(reply.json?["id"]?.stringValue == id)
                #expect(reply.json?["status"]?.stringValue == status)
                #expect(reply.json?["statusReason"]?.stringValue == reason)
                #expect(reply.json?["type"]?.stringValue == "card")
                #expect(reply.json?["card"]?["brand"]?.stringValue == brand)
            }
            let bank = try await raw.send(.get, "/paymentInstruments/\(Seed.bankAccountID)")
            #expect(bank.json?["type"]?.stringValue == "bankAccount")
            #expect(bank.json?["card"] == nil)
            let unknown = try await raw.send(.get, "/paymentInstruments/PI000000000000000000UNKNOWN")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == AdyenSimulatorErrors.notFound)
        }
    }

    @Test("the activation-data exchange: GET, then 2 POSTs each answering a new sdkInput, then a token exists")
    func exchange() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let path = "/paymentInstruments/\(Seed.activeVisaID)/networkTokenActivationData"
            #expect(
                try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)/networkTokens").json?[
                    "networkTokens"]?.arrayValue?.count == 0)

            let noGet = try await raw.send(.post, path, body: raw.json("{\"sdkOutput\":\"AAEC\"}"))
            #expect(noGet.status == 422)
            #expect(noGet.errorCode == AdyenSimulatorErrors.noExchange)

            let started = try await raw.send(.get, path)
            let first = try #require(started.json?["sdkInput"]?.stringValue)
            #expect(Data(base64Encoded: first) != nil)
            let secondReply = try await raw.send(.post, path, body: raw.answering(started))
            let second = try #require(secondReply.json?["sdkInput"]?.stringValue)
            #expect(second != first)
            #expect(
                try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)/networkTokens").json?[
                    "networkTokens"]?.arrayValue?.count == 0)

            // An output that answers an earlier sdkInput (a stale blob re-sent) is refused and does not advance.
            let stale = try await raw.send(.post, path, body: raw.answering(started, extra: "again"))
            #expect(stale.status == 422)
            #expect(stale.errorCode == AdyenSimulatorErrors.staleSDKOutput)
            let unrelated = try await raw.send(.post, path, body: raw.json("{\"sdkOutput\":\"AAED\"}"))
            #expect(unrelated.errorCode == AdyenSimulatorErrors.staleSDKOutput)

            let third = try #require(
                try await raw.send(.post, path, body: raw.answering(secondReply)).json?["sdkInput"]?.stringValue)
            #expect(third != second && third != first)

            let tokens =
                try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)/networkTokens").json?[
                    "networkTokens"]?.arrayValue ?? []
            #expect(tokens.count == 1)
            #expect(tokens.first?["status"]?.stringValue == "active")
            #expect(tokens.first?["type"]?.stringValue == "wallet")
            #expect(tokens.first?["tokenRequestor"]?["name"]?.stringValue == "Apple Pay")
            #expect(tokens.first?["id"]?.stringValue?.hasPrefix("NWTK") == true)

            let after = try await raw.send(.post, path, body: raw.json("{\"sdkOutput\":\"AAEE\"}"))
            #expect(after.status == 422)
            #expect(after.errorCode == AdyenSimulatorErrors.noExchange)
        }
    }

    @Test("a completing sdkOutput naming googlePay creates a Google Pay token")
    func googlePayToken() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let path = "/paymentInstruments/\(Seed.activeVisaID)/networkTokenActivationData"
            var last = try await raw.send(.get, path)
            for _ in 0..<Seed.roundTripsToComplete {
                last = try await raw.send(.post, path, body: raw.answering(last, extra: "device googlePay wallet"))
                #expect(last.status == 200)
            }
            let tokens =
                try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)/networkTokens").json?[
                    "networkTokens"]?.arrayValue ?? []
            #expect(tokens.first?["tokenRequestor"]?["name"]?.stringValue == "Google Pay")
        }
    }

    @Test(
        "sdkOutput that is not standard Base64, missing, or a body that is not JSON is refused as Adyen would",
        arguments: [
            ("{\"sdkOutput\":\"-_8A\"}", 422, AdyenSimulatorErrors.invalidSDKOutput),
            ("{\"sdkOutput\":\"AAE\"}", 422, AdyenSimulatorErrors.invalidSDKOutput),
            ("{\"sdkOutput\":\"AA EC\"}", 422, AdyenSimulatorErrors.invalidSDKOutput),
            ("{\"sdkOutput\":\"\"}", 422, AdyenSimulatorErrors.invalidSDKOutput),
            ("{\"sdkOutput\":42}", 422, AdyenSimulatorErrors.invalidSDKOutput),
            ("{}", 422, AdyenSimulatorErrors.missingField),
            ("not json", 400, "00_400"),
        ])
    func badOutput(body: String, status: Int, code: String) async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let path = "/paymentInstruments/\(Seed.activeVisaID)/networkTokenActivationData"
            var last = try await raw.send(.get, path)
            let reply = try await raw.send(.post, path, body: raw.json(body))
            #expect(reply.status == status)
            #expect(reply.errorCode == code)
            if code == AdyenSimulatorErrors.invalidSDKOutput {
                #expect(reply.json?["invalidFields"]?.arrayValue?.first?["name"]?.stringValue == "sdkOutput")
            }
            // A refused POST does not advance the exchange: two valid POSTs still complete it.
            for _ in 0..<Seed.roundTripsToComplete {
                last = try await raw.send(.post, path, body: raw.answering(last))
                #expect(last.status == 200)
            }
            #expect(
                try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)/networkTokens").json?[
                    "networkTokens"]?.arrayValue?.count == 1)
        }
    }

    @Test("activation data is refused for inactive, suspended, closed and non-card instruments")
    func notProvisionable() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            for id in [Seed.inactiveMastercardID, Seed.suspendedVisaID, Seed.closedMastercardID] {
                let reply = try await raw.send(.get, "/paymentInstruments/\(id)/networkTokenActivationData")
                #expect(reply.status == 422)
                #expect(reply.errorCode == AdyenSimulatorErrors.instrumentNotActive)
            }
            let bank = try await raw.send(.get, "/paymentInstruments/\(Seed.bankAccountID)/networkTokenActivationData")
            #expect(bank.status == 422)
            #expect(bank.errorCode == AdyenSimulatorErrors.notACard)
        }
    }

    @Test(
        "idempotency: same key and body replays (key echoed, no extra round); another body is 422 704; long keys refused"
    )
    func idempotency() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let path = "/paymentInstruments/\(Seed.activeVisaID)/networkTokenActivationData"
            let started = try await raw.send(.get, path)
            let key = "7b6b0c51-3f5e-4c55-8a2d-5a1f6c2b9e01"
            let first = try await raw.send(
                .post, path, headers: [("Idempotency-Key", key)], body: raw.answering(started))
            let replay = try await raw.send(
                .post, path, headers: [("Idempotency-Key", key)], body: raw.answering(started))
            #expect(first.status == 200)
            #expect(replay.status == 200)
            #expect(replay.body == first.body)
            #expect(first.header("Idempotency-Key") == key)
            #expect(replay.header("Idempotency-Key") == key)

            let conflict = try await raw.send(
                .post, path, headers: [("Idempotency-Key", key)], body: raw.answering(started, extra: "other"))
            #expect(conflict.status == 422)
            #expect(conflict.errorCode == AdyenSimulatorErrors.idempotencyConflict)

            // The replay did not advance the exchange: one more POST completes it.
            #expect(
                try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)/networkTokens").json?[
                    "networkTokens"]?.arrayValue?.count == 0)
            #expect(
                try await raw.send(
                    .post, path, headers: [("Idempotency-Key", "second-round")], body: raw.answering(first)
                ).status == 200)
            #expect(
                try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)/networkTokens").json?[
                    "networkTokens"]?.arrayValue?.count == 1)

            let long = try await raw.send(
                .post, path, headers: [("Idempotency-Key", String(repeating: "k", count: 65))],
                body: raw.json("{\"sdkOutput\":\"AAEC\"}"))
            #expect(long.status == 422)
            #expect(long.errorCode == AdyenSimulatorErrors.invalidIdempotencyKey)
        }
    }

    @Test("a key refused with a validation error can be used again once the request is valid")
    func abandonedKey() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let path = "/paymentInstruments/\(Seed.activeVisaID)/networkTokenActivationData"
            let refused = try await raw.send(
                .post, path, headers: [("Idempotency-Key", "k1")], body: raw.json("{\"sdkOutput\":\"AAEC\"}"))
            #expect(refused.status == 422)
            #expect(refused.header("Idempotency-Key") == "k1")
            let started = try await raw.send(.get, path)
            #expect(
                try await raw.send(.post, path, headers: [("Idempotency-Key", "k1")], body: raw.answering(started))
                    .status == 200)
        }
    }

    @Test("network tokens: get, PATCH to suspended (202), closed is final, bad status, unknown token")
    func tokens() async throws {
        try await withSimulator(AdyenSimulator()) { handle in
            let raw = RawClient(handle: handle)
            let listed =
                try await raw.send(.get, "/paymentInstruments/\(Seed.activeMastercardID)/networkTokens").json?[
                    "networkTokens"]?.arrayValue ?? []
            #expect(listed.compactMap { $0["status"]?.stringValue } == ["active", "inactive", "suspended", "closed"])
            #expect(listed.compactMap { $0["type"]?.stringValue } == ["wallet", "googlePay", "applePay", "wallet"])

            let notJSON = try await raw.send(
                .patch, "/networkTokens/\(Seed.activeApplePayTokenID)", body: raw.json("not json"))
            #expect(notJSON.status == 422, "the PATCH operation lists no 400")
            #expect(notJSON.errorCode == AdyenSimulatorErrors.bodyNotAnObject)
            let patched = try await raw.send(
                .patch, "/networkTokens/\(Seed.activeApplePayTokenID)", body: raw.json("{\"status\":\"suspended\"}"))
            #expect(patched.status == 202)
            #expect(patched.body.isEmpty)
            #expect(
                try await raw.send(.get, "/networkTokens/\(Seed.activeApplePayTokenID)").json?["token"]?["status"]?
                    .stringValue == "suspended")

            #expect(
                try await raw.send(
                    .patch, "/networkTokens/\(Seed.activeApplePayTokenID)", body: raw.json("{\"status\":\"closed\"}")
                ).status == 202)
            let reopen = try await raw.send(
                .patch, "/networkTokens/\(Seed.activeApplePayTokenID)", body: raw.json("{\"status\":\"active\"}"))
            #expect(reopen.status == 422)
            #expect(reopen.errorCode == AdyenSimulatorErrors.tokenClosed)

            let bad = try await raw.send(
                .patch, "/networkTokens/\(Seed.inactiveGooglePayTokenID)", body: raw.json("{\"status\":\"inactive\"}"))
            #expect(bad.status == 422)
            #expect(bad.errorCode == AdyenSimulatorErrors.invalidTokenStatus)
            #expect(bad.json?["invalidFields"]?.arrayValue?.first?["name"]?.stringValue == "status")

            #expect(try await raw.send(.get, "/networkTokens/NWTK99999999999999999999999999").status == 404)
            #expect(
                try await raw.send(
                    .patch, "/networkTokens/NWTK99999999999999999999999999", body: raw.json("{\"status\":\"active\"}")
                ).status == 404)
        }
    }

    @Test("faults answer in Adyen's shape; reset restores the seed")
    func faultsAndReset() async throws {
        let simulator = AdyenSimulator()
        try await withSimulator(simulator) { handle in
            let raw = RawClient(handle: handle)
            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/bcl/v2/paymentInstruments",
                    action: .status(503, retryAfterSeconds: 1, message: "Planned maintenance")))
            let fault = try await raw.send(.get, "/paymentInstruments/\(Seed.activeVisaID)")
            #expect(fault.status == 503)
            #expect(fault.errorCode == "00_503")
            #expect(fault.json?["detail"]?.stringValue == "Planned maintenance")
            #expect(fault.json?["status"] == .number(503))

            #expect(
                try await raw.send(
                    .patch, "/networkTokens/\(Seed.activeApplePayTokenID)", body: raw.json("{\"status\":\"closed\"}")
                ).status == 202)
            await simulator.reset()
            #expect(
                try await raw.send(.get, "/networkTokens/\(Seed.activeApplePayTokenID)").json?["token"]?["status"]?
                    .stringValue == "active")
        }
    }

    @Test("signedWebhook: HmacSignature is Base64 HMAC-SHA256 over the body with the hex-decoded key")
    func webhookSignature() throws {
        let simulator = AdyenSimulator()
        let (headers, body) = simulator.signedWebhook(
            type: AdyenSimulator.networkTokenCreated, token: Seed.activeApplePayTokenID)
        let signature = try #require(headers.first { $0.0 == "HmacSignature" }?.1)
        var key = Data()
        var index = Keys.hmacKeyHex.startIndex
        while index < Keys.hmacKeyHex.endIndex {
            let next = Keys.hmacKeyHex.index(index, offsetBy: 2)
            key.append(UInt8(Keys.hmacKeyHex[index..<next], radix: 16) ?? 0)
            index = next
        }
        #expect(key.count == 32)
        let expected = Data(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: key)))
            .base64EncodedString()
        #expect(signature == expected)
        let json = try JSONValue.parse(body)
        #expect(json["type"]?.stringValue == AdyenSimulator.networkTokenCreated)
        #expect(json["data"]?["id"]?.stringValue == Seed.activeApplePayTokenID)
        #expect(json["data"]?["paymentInstrumentId"]?.stringValue == Seed.activeMastercardID)
        #expect(json["data"]?["wallet"]?["type"]?.stringValue == "applePay")
    }
}
