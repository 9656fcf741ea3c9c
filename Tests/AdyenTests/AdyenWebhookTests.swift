import CardGateway
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayAdyen

@Suite("Adyen webhooks: HmacSignature over the raw body", .timeLimit(.minutes(5)))
struct AdyenWebhookTests {
    let now = Date(timeIntervalSince1970: 1_742_375_800)

    @Test("a signed networkToken.created becomes walletTokenCreated with the decision")
    func created() throws {
        let provider = try Fixture.provider(ScriptedTransport([]))
        let body = Fixture.notification()
        let events = try provider.verify(
            Fixture.delivery(body, headers: [("HmacSignature", Fixture.sign(body))]), now: now)
        #expect(events.count == 1)
        let event = try #require(events.first)
        #expect(event.providerKind == .adyen)
        #expect(event.providerType == "balancePlatform.networkToken.created")
        #expect(
            event.id == "NWTK00000000000000000000000001|balancePlatform.networkToken.created|2025-03-19T10:15:30+01:00")
        #expect(event.occurredAt == Date(timeIntervalSince1970: 1_742_375_730))
        guard let tokenEvent = event.event.walletTokenCreated else {
            Issue.record("expected walletTokenCreated, got \(event.event)")
            return
        }
        #expect(tokenEvent.card == CardRef(id: "PI3227C223222B5BPCMFXD2XG"))
        #expect(tokenEvent.decision == "approved")
        #expect(tokenEvent.token.id == "NWTK00000000000000000000000001")
        #expect(tokenEvent.token.wallet == .applePay)
        #expect(tokenEvent.token.status == .active)
        #expect(tokenEvent.token.providerStatus == "active")
        #expect(tokenEvent.token.lastFour == "9876")
    }

    @Test("networkToken.updated becomes walletTokenUpdated; the header name is read in any case")
    func updated() throws {
        let provider = try Fixture.provider(ScriptedTransport([]))
        let body = Fixture.notification(
            type: "balancePlatform.networkToken.updated", status: "suspended", decision: "declined",
            tokenType: "wallet", walletType: nil, requestor: "Google Pay")
        let events = try provider.verify(
            Fixture.delivery(body, headers: [("hmacsignature", Fixture.sign(body))]), now: now)
        guard let tokenEvent = try #require(events.first).event.walletTokenUpdated else {
            Issue.record("expected walletTokenUpdated")
            return
        }
        #expect(tokenEvent.decision == "declined")
        #expect(tokenEvent.token.status == .suspended)
        #expect(tokenEvent.token.wallet == .googlePay)
    }

    @Test("token type given as the wallet name (docs table) is handled")
    func walletNameType() throws {
        let provider = try Fixture.provider(ScriptedTransport([]))
        let body = Fixture.notification(
            decision: "requiresAuthentication", tokenType: "googlePay", walletType: nil, requestor: nil)
        let events = try provider.verify(
            Fixture.delivery(body, headers: [("HMACSIGNATURE", Fixture.sign(body))]), now: now)
        guard let tokenEvent = try #require(events.first).event.walletTokenCreated else { return }
        #expect(tokenEvent.token.wallet == .googlePay)
        #expect(tokenEvent.decision == "requiresAuthentication")
    }

    @Test("tampered body, wrong key, missing header, bad Base64 and two headers are signatureInvalid")
    func refusals() throws {
        let provider = try Fixture.provider(ScriptedTransport([]))
        let body = Fixture.notification()
        let signature = Fixture.sign(body)
        var tampered = body
        tampered[tampered.count - 3] ^= 0x01
        let cases: [WebhookDelivery] = [
            Fixture.delivery(tampered, headers: [("HmacSignature", signature)]),
            Fixture.delivery(
                body,
                headers: [
                    (
                        "HmacSignature",
                        Fixture.sign(body, keyHex: "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF")
                    )
                ]),
            Fixture.delivery(body, headers: []),
            Fixture.delivery(body, headers: [("HmacSignature", "not base64 !!")]),
            Fixture.delivery(body, headers: [("HmacSignature", signature), ("HmacSignature", signature)]),
            Fixture.delivery(body, headers: [("HmacSignature", Data(signature.utf8).base64EncodedString())]),
        ]
        for delivery in cases {
            do {
                _ = try provider.verify(delivery, now: now)
                Issue.record("expected signatureInvalid")
            } catch let error as CardGatewayError {
                #expect(error.code == .signatureInvalid)
                #expect(!error.description.contains(signature))
            }
        }
    }

    @Test("a signature made with the hex string itself as key (not decoded) is refused")
    func hexKeyIsDecoded() throws {
        let provider = try Fixture.provider(ScriptedTransport([]))
        let body = Fixture.notification()
        let wrong = MessageAuthentication.hmacSHA256(key: Data(Fixture.hmacKeyHex.utf8), message: body)
            .base64EncodedString()
        #expect(throws: CardGatewayError.self) {
            try provider.verify(Fixture.delivery(body, headers: [("HmacSignature", wrong)]), now: now)
        }
    }

    @Test("unknown notification types verify and produce no events")
    func unknownType() throws {
        let provider = try Fixture.provider(ScriptedTransport([]))
        let body = Data(
            "{\"type\": \"balancePlatform.paymentInstrument.updated\", \"environment\": \"test\", \"data\": {\"paymentInstrument\": {\"id\": \"PI1\"}}}"
                .utf8)
        #expect(
            try provider.verify(Fixture.delivery(body, headers: [("HmacSignature", Fixture.sign(body))]), now: now)
                .isEmpty)
    }

    @Test("a signed body that is not a notification, or lacks data.id, is invalidResponse")
    func malformedSigned() throws {
        let provider = try Fixture.provider(ScriptedTransport([]))
        for text in [
            "not json", "{\"type\": \"balancePlatform.networkToken.created\", \"environment\": \"test\"}",
            "{\"type\": \"balancePlatform.networkToken.created\", \"environment\": \"test\", \"data\": {\"paymentInstrumentId\": \"PI1\"}}",
        ] {
            let body = Data(text.utf8)
            do {
                _ = try provider.verify(
                    Fixture.delivery(body, headers: [("HmacSignature", Fixture.sign(body))]), now: now)
                Issue.record("expected invalidResponse")
            } catch let error as CardGatewayError {
                #expect(error.code == .invalidResponse)
            }
        }
    }

    @Test("without an hmacKey, verify is invalidConfiguration")
    func noKey() throws {
        let provider = try Fixture.provider(ScriptedTransport([]), hmacKey: nil)
        let body = Fixture.notification()
        do {
            _ = try provider.verify(Fixture.delivery(body, headers: [("HmacSignature", Fixture.sign(body))]), now: now)
            Issue.record("expected invalidConfiguration")
        } catch let error as CardGatewayError {
            #expect(error.code == .invalidConfiguration)
        }
    }

    @Test("no timestamp is signed: an old delivery still verifies (callers de-duplicate on the event id)")
    func noStaleness() throws {
        let provider = try Fixture.provider(ScriptedTransport([]))
        let body = Fixture.notification(timestamp: "2020-01-01T00:00:00+00:00")
        let events = try provider.verify(
            Fixture.delivery(body, headers: [("HmacSignature", Fixture.sign(body))]), now: now)
        #expect(events.count == 1)
    }
}
