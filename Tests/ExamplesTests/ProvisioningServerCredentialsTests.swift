import CardGateway
import CardGatewayTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ProvisioningServerApp
import Testing

@Suite("Provisioning server: stored credentials and webhooks", .timeLimit(.minutes(5)))
struct ProvisioningServerCredentialsTests {
    static let storeBody = #"""
        {"intent":"store","consent":{"recordedAt":"2025-01-31T12:00:00Z","evidence":"terms-v3 checkbox"},
         "amount":{"minorUnits":100,"currency":"GBP"},"paymentMethod":"card","orderReference":"order-1"}
        """#

    static func reuseBody(_ reference: String) -> String {
        #"{"intent":"reuse","reference":"\#(reference)","amount":{"minorUnits":2500,"currency":"GBP"}}"#
    }

    @Test("store with consent, verify the result, list it, then reuse it; other users cannot")
    func storeVerifyReuse() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let session = try await client.send(.post, "/v1/credentials/session", json: Self.storeBody)
            #expect(session.status == 200)
            #expect(try session.json()["token"] == .string(Fixture.storeSessionJWT))
            #expect(try session.json()["securityCodeLength"] == nil)
            #expect(session.header("Cache-Control") == "no-store")
            let sent = try #require(fixture.backend.lastSession)
            #expect(
                sent.intent
                    == .store(
                        consent: CardholderConsent(
                            recordedAt: Date(timeIntervalSince1970: 1_738_324_800), evidence: "terms-v3 checkbox")))
            #expect(sent.amount == Money(minorUnits: 100, currency: "GBP"))
            #expect(sent.customer == "user-alice")
            #expect(sent.orderReference == "order-1")

            let result = try await client.send(
                .post, "/v1/credentials/result", json: #"{"jwt":"\#(Fixture.resultJWT)"}"#)
            #expect(result.status == 200)
            let credential = try result.json()
            #expect(credential["reference"] == .string("56-9-1001"))
            #expect(credential["maskedPAN"] == .string("411111######1111"))
            #expect(credential["provider"] == .string("cof"))
            #expect(credential["scheme"] == .string("visa"))

            let list = try await client.send(.get, "/v1/credentials")
            #expect(try list.json()["credentials"]?.arrayValue?.map { $0["reference"]?.stringValue } == ["56-9-1001"])

            let reuse = try await client.send(.post, "/v1/credentials/session", json: Self.reuseBody("56-9-1001"))
            #expect(reuse.status == 200)
            #expect(try reuse.json()["token"] == .string(Fixture.reuseSessionJWT))
            #expect(try reuse.json()["securityCodeLength"] == .number(3))

            // Bob cannot pay with Alice's credential, nor claim it.
            let calls = fixture.backend.totalCalls
            let bobReuse = try await client.send(
                .post, "/v1/credentials/session", token: Fixture.bobToken, json: Self.reuseBody("56-9-1001"))
            #expect(bobReuse.status == 404)
            #expect(fixture.backend.totalCalls == calls)
            let bobList = try await client.send(.get, "/v1/credentials", token: Fixture.bobToken)
            #expect(try bobList.json()["credentials"] == .array([]))
            let bobClaim = try await client.send(
                .post, "/v1/credentials/result", token: Fixture.bobToken, json: #"{"jwt":"\#(Fixture.resultJWT)"}"#)
            #expect(bobClaim.status == 409)
            #expect(try bobClaim.problem()["code"] == .string("conflict"))
        }
    }

    @Test("malformed session requests are refused before any provider call")
    func sessionValidation() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let cases: [(String, String)] = [
                (#"{"intent":"store","amount":{"minorUnits":100,"currency":"GBP"}}"#, "consent"),
                (
                    #"{"intent":"store","consent":{"recordedAt":"yesterday","evidence":"x"},"amount":{"minorUnits":100,"currency":"GBP"}}"#,
                    "request"
                ),
                (
                    #"{"intent":"store","consent":{"recordedAt":"2025-01-31T12:00:00Z","evidence":"x"},"amount":{"minorUnits":0,"currency":"GBP"}}"#,
                    "amount.minorUnits"
                ),
                (
                    #"{"intent":"store","consent":{"recordedAt":"2025-01-31T12:00:00Z","evidence":"x"},"amount":{"minorUnits":100,"currency":"gbp"}}"#,
                    "amount.currency"
                ),
                (
                    #"{"intent":"store","consent":{"recordedAt":"2025-01-31T12:00:00Z","evidence":"x"},"amount":{"minorUnits":1.5,"currency":"GBP"}}"#,
                    "request"
                ),
                (
                    #"{"intent":"store","consent":{"recordedAt":"2025-01-31T12:00:00Z","evidence":"x"},"reference":"r","amount":{"minorUnits":1,"currency":"GBP"}}"#,
                    "reference"
                ),
                (#"{"intent":"reuse","amount":{"minorUnits":100,"currency":"GBP"}}"#, "reference"),
                (#"{"intent":"keep","amount":{"minorUnits":100,"currency":"GBP"}}"#, "intent"),
                (
                    #"{"intent":"reuse","reference":"r","amount":{"minorUnits":100,"currency":"GBP"},"paymentMethod":"cash"}"#,
                    "paymentMethod"
                ),
                // Trust Payments stores no wallet payment as a credential on file: the document offers only card.
                (
                    #"{"intent":"reuse","reference":"r","amount":{"minorUnits":100,"currency":"GBP"},"paymentMethod":"googlePay"}"#,
                    "paymentMethod"
                ),
                (
                    #"{"intent":"store","consent":{"recordedAt":"2025-01-31T12:00:00Z","evidence":"x"},"amount":{"minorUnits":100,"currency":"GBP"},"paymentMethod":"applePay"}"#,
                    "paymentMethod"
                ),
                (
                    #"{"intent":"reuse","reference":"r","amount":{"minorUnits":100,"currency":"GBP"},"cvv":"123"}"#,
                    "cvv"
                ),
            ]
            for (body, field) in cases {
                let reply = try await client.send(.post, "/v1/credentials/session", json: body)
                #expect(reply.status == 400, "\(body)")
                let fields = try reply.problem()["errors"]?.arrayValue?.compactMap { $0["field"]?.stringValue } ?? []
                #expect(fields.contains(field), "\(body): \(fields)")
                // The refused security code is never echoed back (the request id is random, so look for the field's value).
                #expect(!reply.text.contains("\"123\""))
            }
            let unknownReference = try await client.send(
                .post, "/v1/credentials/session", json: Self.reuseBody("56-9-9999"))
            #expect(unknownReference.status == 404)
            #expect(try await client.send(.post, "/v1/credentials/result", json: #"{"jwt":""}"#).status == 400)
            #expect(try await client.send(.post, "/v1/credentials/result", json: #"{"token":"x"}"#).status == 400)
        }
        #expect(fixture.backend.totalCalls == 0)
    }

    @Test("a declined result is a 402 and records nothing")
    func declinedResult() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let reply = try await client.send(
                .post, "/v1/credentials/result", json: #"{"jwt":"\#(Fixture.declinedResultJWT)"}"#)
            #expect(reply.status == 402)
            #expect(try reply.problem()["code"] == .string("declined"))
            #expect(try await client.send(.get, "/v1/credentials").json()["credentials"] == .array([]))
        }
    }

    @Test("without a stored-credential route the credential writes answer 501")
    func notConfigured() async throws {
        let fixture = try Fixture(configuration: ProvisioningServer.Configuration())
        try await fixture.withClient { client in
            let reply = try await client.send(.post, "/v1/credentials/session", json: Self.storeBody)
            #expect(reply.status == 501)
            #expect(try reply.problem()["code"] == .string("unsupported"))
        }
        #expect(fixture.backend.totalCalls == 0)
    }

    @Test("a webhook with a valid signature is 204 and reaches onEvent; an unauthenticated one is 401 and does not")
    func webhooks() async throws {
        let fixture = try Fixture()
        try await fixture.withClient { client in
            let body = Data(#"{"id":"evt_42","card":"pc_1001","status":"locked"}"#.utf8)
            let valid = try await client.sendRaw(
                .post, "/webhooks/payload", body: body, headers: ["X-Fake-Signature": FakeBackend.signature(body)])
            #expect(valid.status == 204)
            #expect(fixture.events.all.count == 1)
            let event = try #require(fixture.events.all.first)
            #expect(event.id == "evt_42")
            #expect(event.provider == "payload")
            guard let change = event.event.cardStatusChanged else {
                Issue.record("expected a card status change")
                return
            }
            #expect(change.card.id == "pc_1001")
            #expect(change.newStatus == .locked)

            let tampered = Data(#"{"id":"evt_42","card":"pc_1001","status":"active"}"#.utf8)
            let invalid = try await client.sendRaw(
                .post, "/webhooks/payload", body: tampered, headers: ["X-Fake-Signature": FakeBackend.signature(body)])
            #expect(invalid.status == 401)
            #expect(try invalid.problem()["code"] == .string("signatureInvalid"))
            #expect(invalid.header("WWW-Authenticate") == #"Signature realm="webhooks""#)
            let unsigned = try await client.sendRaw(.post, "/webhooks/payload", body: body, headers: [:])
            #expect(unsigned.status == 401)
            #expect(unsigned.header("WWW-Authenticate")?.isEmpty == false)
            #expect(fixture.events.all.count == 1)
            // Authentic but unreadable: the sender is known, its body is not what a webhook holds. 400.
            let unreadable = Data(#"{"id":"evt_43"}"#.utf8)
            let malformed = try await client.sendRaw(
                .post, "/webhooks/payload", body: unreadable,
                headers: ["X-Fake-Signature": FakeBackend.signature(unreadable)])
            #expect(malformed.status == 400)
            #expect(try malformed.problem()["code"] == .string("invalidRequest"))
            #expect(malformed.header("WWW-Authenticate") == nil)
            #expect(fixture.events.all.count == 1)

            let unknown = try await client.sendRaw(
                .post, "/webhooks/nowhere", body: body, headers: ["X-Fake-Signature": FakeBackend.signature(body)])
            #expect(unknown.status == 404)
            let noWebhooks = try await client.sendRaw(
                .post, "/webhooks/key", body: body, headers: ["X-Fake-Signature": FakeBackend.signature(body)])
            #expect(noWebhooks.status == 404)
        }
        #expect(fixture.backend.count("webhook") == 4)
        #expect(fixture.events.all.count == 1)
    }
}
