import BridgeSimulator
import CardGateway
import CardGatewayTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ProvisioningServerApp
import Testing

@Suite("Provisioning server: error mapping and redaction", .timeLimit(.minutes(5)))
struct ProvisioningServerErrorTests {
    /// The table as the API promises it.
    static let expected: [(code: String, status: Int)] = [
        ("invalidRequest", 400), ("authenticationFailed", 502), ("permissionDenied", 502), ("notFound", 404),
        ("cardNotEligible", 409), ("invalidCardState", 409), ("scaRequired", 403), ("declined", 402), ("conflict", 409),
        ("rateLimited", 429), ("providerUnavailable", 503), ("timeout", 504), ("unsupported", 501),
        ("invalidConfiguration", 500), ("invalidResponse", 502), ("signatureInvalid", 401), ("transport", 502),
    ]

    @Test("the table covers every CardGatewayError code, and an unknown code is a 500")
    func tableIsComplete() {
        #expect(Set(ErrorStatusTable.rows.keys) == Set(CardGatewayError.Code.all))
        for (code, status) in Self.expected {
            #expect(ErrorStatusTable.status(for: CardGatewayError.Code(rawValue: code)) == status, "\(code)")
        }
        #expect(ErrorStatusTable.status(for: CardGatewayError.Code(rawValue: "somethingNew")) == 500)
    }

    @Test("each CardGatewayError code becomes its status and a problem with that code", arguments: expected.map(\.code))
    func mapping(code: String) async throws {
        let fixture = try Fixture()
        let status = try #require(Self.expected.first { $0.code == code }?.status)
        fixture.backend.fail(
            cardID: "pc_1001", with: CardGatewayError(CardGatewayError.Code(rawValue: code), "provider said no"))
        try await fixture.withClient { client in
            let reply = try await client.send(.get, "/v1/cards/\(Fixture.payloadCard)")
            #expect(reply.status == status)
            let problem = try reply.problem()
            #expect(problem["code"] == .string(code))
            #expect(problem["provider"] == .string("payload"))
            #expect(problem["type"]?.stringValue?.hasSuffix(code) == true)
            #expect(!reply.text.contains("provider said no"))
        }
    }

    @Test("429 carries Retry-After from the provider, rounded up, and a default when the provider gave none")
    func retryAfter() async throws {
        let fixture = try Fixture()
        fixture.backend.fail(
            cardID: "pc_1001", with: CardGatewayError(.rateLimited, "slow down", retryAfter: .milliseconds(6500)))
        fixture.backend.fail(cardID: "PI_2002", with: CardGatewayError(.rateLimited, "slow down"))
        try await fixture.withClient { client in
            let given = try await client.send(.get, "/v1/cards/\(Fixture.payloadCard)")
            #expect(given.status == 429)
            #expect(given.header("Retry-After") == "7")
            #expect(try given.problem()["retryAfterSeconds"] == .number(7))
            #expect(try given.problem()["retryable"] == .bool(true))
            let defaulted = try await client.send(.get, "/v1/cards/\(Fixture.relayCard)")
            #expect(defaulted.status == 429)
            #expect(defaulted.header("Retry-After") == "1")
        }
    }

    @Test(
        "a problem states retryable, may-have-reached-provider and the provider's request id as fields; Retry-After only when retryable"
    )
    func actionableFields() async throws {
        let fixture = try Fixture()
        // A write whose outcome is unknown: not retryable, may have reached the provider; the provider's hint to
        // wait must not turn into a Retry-After that invites a blind repeat.
        fixture.backend.fail(
            cardID: "pc_1001",
            with: CardGatewayError(
                .providerUnavailable, "charge outcome unknown", provider: "tp-1", requestID: "req_provider_42",
                isRetryable: false,
                mayHaveReachedProvider: true, retryAfter: .seconds(3)
            ))
        fixture.backend.fail(
            cardID: "PI_2002",
            with: CardGatewayError(
                .providerUnavailable, "down", provider: "adyen-1", isRetryable: true, retryAfter: .seconds(2)))
        try await fixture.withClient { client in
            let unknown = try await client.send(.get, "/v1/cards/\(Fixture.payloadCard)")
            #expect(unknown.status == 503)
            let problem = try unknown.problem()
            #expect(problem["retryable"] == .bool(false))
            #expect(problem["mayHaveReachedProvider"] == .bool(true))
            #expect(problem["providerRequestId"] == .string("req_provider_42"))
            #expect(problem["provider"] == .string("tp-1"))
            #expect(problem["retryAfterSeconds"] == nil)
            #expect(unknown.header("Retry-After") == nil)

            let down = try await client.send(.get, "/v1/cards/\(Fixture.relayCard)")
            #expect(down.header("Retry-After") == "2")
            #expect(try down.problem()["retryAfterSeconds"] == .number(2))
            #expect(try down.problem()["retryable"] == .bool(true))
            #expect(try down.problem()["mayHaveReachedProvider"] == .bool(false))
        }
    }

    @Test("403 for SCA carries the challenge the app must solve")
    func scaChallenge() async throws {
        let fixture = try Fixture()
        let challenge = SCAChallenge(
            eventID: "evt-sca-1", walletOperationID: "wop-9", mode: "OTP",
            verifications: [SCAChallenge.Verification(method: "OTP", channel: "SMS", target: "+44*****789")],
            created: Date(timeIntervalSince1970: 1_700_000_000), expires: Date(timeIntervalSince1970: 1_700_000_300)
        )
        fixture.backend.fail(
            cardID: "pc_1001", with: CardGatewayError(.scaRequired, "challenge raised", scaChallenge: challenge))
        try await fixture.withClient { client in
            let reply = try await client.send(
                .post, "/v1/cards/\(Fixture.payloadCard)/provisioning/googlePay",
                json: #"{"clientDeviceId":"d-1","clientWalletAccountId":"w-1"}"#
            )
            #expect(reply.status == 403)
            let body = try reply.problem()
            #expect(body["code"] == .string("scaRequired"))
            #expect(body["challenge"]?["eventId"] == .string("evt-sca-1"))
            #expect(body["challenge"]?["walletOperationId"] == .string("wop-9"))
            #expect(body["challenge"]?["mode"] == .string("OTP"))
            #expect(body["challenge"]?["verifications"]?.arrayValue?.first?["channel"] == .string("SMS"))
            #expect(body["challenge"]?["expires"] == .string("2023-11-14T22:18:20Z"))
        }
    }

    @Test(
        "logs and error bodies carry no token, secret, payload or card data; the access log has route, status, duration and user"
    )
    func redaction() async throws {
        let fixture = try Fixture()
        let nonce = Data("nonce-bytes-0123456789".utf8).base64
        // Real DER certificates (the simulators'), since the gateway refuses anything else before the backend.
        let certificate = BridgeSimulator.TestInputs.leafCertificate.base64
        let subordinate = BridgeSimulator.TestInputs.subordinateCertificate.base64
        let signature = Data("nonce-signature-bytes".utf8).base64
        let sdkOutput = Data("opaque-sdk-output-blob".utf8).base64
        fixture.backend.fail(
            cardID: "ic_3003",
            with: CardGatewayError(
                .declined, "card 4111111111111111 declined; key sk_live_abcdefghijklmnop", providerCode: "05")
        )
        try await fixture.withClient { client in
            var bodies: [String] = []
            let apple =
                #"{"certificates":["\#(certificate)","\#(subordinate)"],"nonce":"\#(nonce)","nonceSignature":"\#(signature)"}"#
            bodies.append(
                try await client.send(.post, "/v1/cards/\(Fixture.payloadCard)/provisioning/applePay", json: apple).text
            )
            bodies.append(
                try await client.send(
                    .post, "/v1/cards/\(Fixture.relayCard)/provisioning/applePay",
                    json: #"{"sdkOutput":"\#(sdkOutput)"}"#
                ).text)
            bodies.append(
                try await client.send(
                    .post, "/v1/cards/\(Fixture.keyCard)/provisioning/applePay", json: #"{"apiVersion":"2020-08-27"}"#
                ).text)
            bodies.append(
                try await client.send(
                    .post, "/v1/credentials/session", json: ProvisioningServerCredentialsTests.storeBody
                ).text)
            bodies.append(
                try await client.send(.post, "/v1/credentials/result", json: #"{"jwt":"\#(Fixture.resultJWT)"}"#).text)
            bodies.append(try await client.send(.get, "/v1/wallet-extension").text)
            bodies.append(try await client.send(.get, "/v1/cards", token: "wrong-token-abcdef123456").text)
            bodies.append(
                try await client.send(
                    .post, "/v1/cards/\(Fixture.payloadCard)/provisioning/applePay",
                    json: #"{"certificates":["\#(certificate)"],"nonce":"\#(nonce)!"}"#
                ).text)
            let failed = try await client.send(.get, "/v1/cards/\(Fixture.keyCard)")
            #expect(failed.status == 402)
            bodies.append(failed.text)

            // Error bodies never echo the request or the provider.
            let errorBodies = [bodies[6], bodies[7], bodies[8]]
            for text in errorBodies {
                for needle in [
                    nonce, certificate, "4111111111111111", "sk_live_abcdefghijklmnop", "wrong-token-abcdef123456",
                    Fixture.aliceToken,
                ] {
                    #expect(!text.contains(needle), "an error body contains \(needle)")
                }
            }
        }
        let needles = [
            Fixture.aliceToken, Fixture.bobToken, "wrong-token-abcdef123456", nonce, certificate, signature, sdkOutput,
            Fixture.storeSessionJWT, Fixture.resultJWT, "ek_test_YWNjdF8xRmFrZVNlY3JldEtleQ", "start-PI_2002".base64,
            "activation-pc_1001".base64, "4111111111111111", "sk_live_abcdefghijklmnop", "Alice Example",
            "terms-v3 checkbox",
        ]
        #expect(fixture.logs.leaks(of: needles) == [])

        let access = fixture.logs.all.filter { $0.message == "request" }
        #expect(access.count == 9)
        let first = try #require(access.first)
        #expect(first.metadata["http.method"] == "POST")
        #expect(first.metadata["http.route"] == "/v1/cards/{cardId}/provisioning/{wallet}")
        #expect(first.metadata["http.status"] == "200")
        #expect(first.metadata["user.id"] == "user-alice")
        #expect(first.metadata["duration_ms"] != nil)
        #expect(first.metadata["request.id"] != nil)
        let unauthenticated = try #require(access.first { $0.metadata["http.status"] == "401" })
        #expect(unauthenticated.metadata["user.id"] == nil)
        let declined = try #require(access.last)
        #expect(declined.metadata["error.code"] == "declined")
        #expect(declined.metadata["provider"] == "key")
        // The access log names route templates, never concrete paths with card ids.
        #expect(!access.contains { ($0.metadata["http.route"] ?? "").contains(Fixture.payloadCard) })
    }
}
