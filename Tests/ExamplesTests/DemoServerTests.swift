import BridgeSimulator
import CardGateway
import ExampleSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MarqetaSimulator
import ProvisioningServerApp
import Testing
import TrustPaymentsSimulator

/// `provisioning-server` as it starts without `--config`: the demo users on the embedded simulators, end to end.
@Suite("provisioning-server on the embedded simulators", .timeLimit(.minutes(5)))
struct DemoServerTests {
    static func withDemoServer(
        _ body: @Sendable (any TestClientProtocol, RunningSimulators) async throws -> Void
    ) async throws {
        try await EmbeddedSimulators().run { running in
            let server = try DemoServer.make(running: running)
            try await server.buildApplication().test(.router) { client in try await body(client, running) }
        }
    }

    @Test("alice sees her five cards across four providers; bob cannot reach them")
    func ownership() async throws {
        try await Self.withDemoServer { client, _ in
            let cards = try await client.send(.get, "/v1/cards", token: DemoUsers.aliceToken)
            #expect(cards.status == 200)
            let list = try cards.json()["cards"]?.arrayValue ?? []
            #expect(
                list.compactMap { $0["id"]?.stringValue }.sorted() == [
                    "business", "crypto", "everyday", "frozen", "travel",
                ])
            #expect(
                Set(list.compactMap { $0["provider"]?.stringValue }) == [
                    "eu-cards", "adyen-issuing", "us-issuing", "bridge-cards",
                ])
            #expect(try await client.send(.get, "/v1/cards/everyday", token: DemoUsers.bobToken).status == 404)
            #expect(
                try await client.send(.get, "/v1/cards/everyday", token: "demo-token-nobody-00000000").status == 401)
            // Both have a card called "crypto": each sees their own.
            let alices = try await client.send(.get, "/v1/cards/crypto", token: DemoUsers.aliceToken).json()
            let bobs = try await client.send(.get, "/v1/cards/crypto", token: DemoUsers.bobToken).json()
            #expect(alices["lastFour"] != bobs["lastFour"])
        }
    }

    @Test("provisioning through the server reaches each provider's simulator")
    func provisioning() async throws {
        try await Self.withDemoServer { client, running in
            let offer = try await client.send(
                .get, "/v1/cards/everyday/provisioning/offer?wallet=applePay", token: DemoUsers.aliceToken)
            #expect(try offer.json()["flow"]?.stringValue == "encryptedPayload")
            let locked = try await client.send(
                .get, "/v1/cards/frozen/provisioning/offer?wallet=applePay", token: DemoUsers.aliceToken)
            #expect(try locked.json()["eligible"] == .bool(false))

            let google = try await client.send(
                .post, "/v1/cards/crypto/provisioning/googlePay", token: DemoUsers.aliceToken,
                json: #"{"clientDeviceId":"device-1","clientWalletAccountId":"account-1"}"#
            )
            #expect(google.status == 200, "\(google.text)")
            #expect(try google.json()["opaquePaymentCard"]?.stringValue?.isEmpty == false)
            let bridgeCall = try #require(
                running.handle("bridge")?.journal.entries(method: "POST", pathContains: "/card_accounts/").last)
            #expect(bridgeCall.path.contains(BridgeSimulator.Seed.customerID))

            // Wallet names are the document's: applePay, not apple-pay.
            let misspelt = try await client.send(
                .post, "/v1/cards/business/provisioning/apple-pay", token: DemoUsers.aliceToken,
                json: #"{"apiVersion":"2020-08-27"}"#)
            #expect(misspelt.status == 400)
            let key = try await client.send(
                .post, "/v1/cards/business/provisioning/applePay", token: DemoUsers.aliceToken,
                json: #"{"apiVersion":"2020-08-27"}"#)
            #expect(key.status == 200, "\(key.text)")
            #expect(
                running.handle("stripe")?.journal.entries(method: "POST", pathContains: "/v1/ephemeral_keys").count == 1
            )

            let relay = try await client.send(
                .post, "/v1/cards/travel/provisioning/applePay", token: DemoUsers.aliceToken, json: "{}")
            #expect(relay.status == 200, "\(relay.text)")
            #expect(try relay.json()["sdkInput"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("bob's Marqeta card goes to Samsung Pay through the server, by Marqeta's provision request")
    func samsungPayThroughMarqeta() async throws {
        try await Self.withDemoServer { client, running in
            let offer = try await client.send(
                .get, "/v1/cards/rewards/provisioning/offer?wallet=samsungPay", token: DemoUsers.bobToken)
            #expect(offer.status == 200, "\(offer.text)")
            #expect(try offer.json()["eligible"] == .bool(true))
            #expect(try offer.json()["flow"]?.stringValue == "encryptedPayload")
            let samsung = try await client.send(
                .post, "/v1/cards/rewards/provisioning/samsungPay", token: DemoUsers.bobToken,
                json:
                    #"{"deviceId":"device-1","walletUserId":"wallet-user-1","deviceType":"watch","appVersion":"bank-app 9.1"}"#
            )
            #expect(samsung.status == 200, "\(samsung.text)")
            let answer = try samsung.json()
            #expect(answer["extraProvisionPayload"]?.stringValue?.isEmpty == false)
            #expect(answer["opaquePaymentCard"] == nil)
            #expect(answer["cardType"]?.stringValue?.isEmpty == false)
            #expect(answer["tokenProvider"]?.stringValue?.isEmpty == false)
            let calls = try #require(
                running.handle("marqeta")?.journal.entries(
                    method: "POST", pathContains: "/digitalwalletprovisionrequests/"))
            #expect(calls.map(\.path) == ["/v3/digitalwalletprovisionrequests/samsungpay"])
            #expect(
                calls.first?.bodyText.contains(#""card_token":"\#(MarqetaSimulator.Seed.activeCard)""#) == true,
                "\(calls.first?.bodyText ?? "")")
            let sent = try JSONValue.parse(try #require(calls.first?.body))
            #expect(sent["device_type"]?.stringValue == "WATCH")
            #expect(sent["provisioning_app_version"]?.stringValue == "bank-app 9.1")
            #expect(sent["wallet_user_id"]?.stringValue == "wallet-user-1")
            // Google Pay's shape is not Samsung Pay's: a 409 naming the fields, and nothing sent.
            let google = try await client.send(
                .post, "/v1/cards/rewards/provisioning/samsungPay", token: DemoUsers.bobToken,
                json: #"{"clientDeviceId":"d","clientWalletAccountId":"w"}"#
            )
            #expect(google.status == 409, "\(google.text)")
            #expect(
                try #require(
                    running.handle("marqeta")?.journal.entries(
                        method: "POST", pathContains: "/digitalwalletprovisionrequests/")
                ).count == 1)
            // Alice has no card called rewards.
            #expect(
                try await client.send(
                    .post, "/v1/cards/rewards/provisioning/samsungPay", token: DemoUsers.aliceToken, json: "{}"
                ).status == 404)
        }
    }

    @Test("a card saved through the Trust Payments SDK is recorded for its user only")
    func storedCredentials() async throws {
        try await Self.withDemoServer { client, running in
            let session = try await client.send(
                .post, "/v1/credentials/session", token: DemoUsers.aliceToken,
                json:
                    #"{"intent":"store","consent":{"recordedAt":"2026-01-31T12:00:00Z","evidence":"save-card checkbox"},"amount":{"minorUnits":1050,"currency":"GBP"}}"#
            )
            #expect(session.status == 200, "\(session.text)")
            let token = try #require(try session.json()["token"]?.stringValue)
            let result = try await running.simulators.trustPayments.sdkPayment(
                sessionJWT: token, pan: TrustPaymentsSimulator.Seed.Card.visa,
                expiryDate: TrustPaymentsSimulator.Seed.expiryDate, securityCode: "123"
            )
            // A result whose signature was tampered with is named as a bad result token, not as a webhook's signature.
            let tampered = String(result.dropLast(4)) + (result.hasSuffix("AAAA") ? "BBBB" : "AAAA")
            let refused = try await client.send(
                .post, "/v1/credentials/result", token: DemoUsers.aliceToken, json: #"{"jwt":"\#(tampered)"}"#)
            #expect(refused.status == 400)
            let problem = try refused.problem()
            #expect(problem["code"]?.stringValue == "signatureInvalid")
            #expect(problem["title"]?.stringValue == "Invalid result token")
            #expect(problem["detail"]?.stringValue?.contains("result JWT") == true)
            #expect(!refused.text.lowercased().contains("webhook"), "\(refused.text)")
            #expect(problem["errors"]?.arrayValue?.first?["field"]?.stringValue == "jwt")

            let stored = try await client.send(
                .post, "/v1/credentials/result", token: DemoUsers.aliceToken, json: #"{"jwt":"\#(result)"}"#)
            #expect(stored.status == 200, "\(stored.text)")
            #expect(!stored.text.contains(TrustPaymentsSimulator.Seed.Card.visa))
            let alices = try await client.send(.get, "/v1/credentials", token: DemoUsers.aliceToken).json()
            let bobs = try await client.send(.get, "/v1/credentials", token: DemoUsers.bobToken).json()
            #expect(alices["credentials"]?.arrayValue?.count == 1)
            #expect(bobs["credentials"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test("a signed webhook from a simulator is accepted at its instance's receiver; a forged one is not")
    func webhooks() async throws {
        try await Self.withDemoServer { client, running in
            let delivery = try #require(
                try running.simulators.sampleWebhook(instance: EmbeddedSimulators.Instance.adyen))
            var headers: [String: String] = [:]
            for field in delivery.headers { headers[field.name.rawName] = field.value }
            let accepted = try await client.sendRaw(
                .post, "/webhooks/adyen-issuing", body: delivery.body, headers: headers)
            #expect(accepted.status / 100 == 2, "\(accepted.text)")
            var forged = delivery.body
            forged.append(contentsOf: Array(" ".utf8))
            let refused = try await client.sendRaw(.post, "/webhooks/adyen-issuing", body: forged, headers: headers)
            #expect(refused.status == 401)
        }
    }
}
