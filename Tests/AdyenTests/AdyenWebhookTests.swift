import AdyenSimulator
import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import SharedTestSupport
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

    @Test("other notification types, and an instrument update without a status, verify and produce no events")
    func unknownType() throws {
        let provider = try Fixture.provider(ScriptedTransport([]))
        for text in [
            "{\"type\": \"balancePlatform.balanceAccount.updated\", \"environment\": \"test\", \"data\": {\"balanceAccount\": {\"id\": \"BA1\"}}}",
            "{\"type\": \"balancePlatform.paymentInstrument.updated\", \"environment\": \"test\", \"data\": {\"paymentInstrument\": {\"id\": \"PI1\", \"type\": \"card\"}}}",
        ] {
            let body = Data(text.utf8)
            #expect(
                try provider.verify(Fixture.delivery(body, headers: [("HmacSignature", Fixture.sign(body))]), now: now)
                    .isEmpty)
        }
    }

    /// The `value` of a published example in Adyen's `BalancePlatformConfigurationNotification-v2.json` (the copy in
    /// `Fixtures`), as a body.
    static func publishedExample(_ name: String) throws -> Data {
        let document = try #require(
            try JSONSerialization.jsonObject(
                with: Data(
                    contentsOf: PublishedShape.fixtureURL("adyen-BalancePlatformConfigurationNotification-v2.json")))
                as? [String: Any])
        let examples = try #require((document["components"] as? [String: Any])?["examples"] as? [String: Any])
        let value = try #require((examples[name] as? [String: Any])?["value"])
        return try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    @Test("Adyen's published 'Card updated' example (status suspended) is a card status change")
    func publishedCardUpdated() throws {
        let provider = try Fixture.provider(ScriptedTransport([]))
        let body = try Self.publishedExample(
            "post-balancePlatform.paymentInstrument.updated-balancePlatform-paymentInstrument-updated")
        let events = try provider.verify(
            Fixture.delivery(body, headers: [("HmacSignature", Fixture.sign(body))]), now: now)
        #expect(events.count == 1)
        let event = try #require(events.first)
        #expect(event.providerType == "balancePlatform.paymentInstrument.updated")
        #expect(
            event.id == "PI00000000000000000001|balancePlatform.paymentInstrument.updated|2024-12-15T15:42:03+01:00")
        #expect(event.occurredAt == Date(timeIntervalSince1970: 1_734_273_723))  // 2024-12-15T14:42:03Z
        let change = try #require(event.event.cardStatusChanged)
        #expect(change.card == CardRef(id: "PI00000000000000000001", customer: "BA00000000000000000001"))
        #expect(change.newStatus == .suspended)
        #expect(change.providerNewStatus == "suspended")
        // Adyen's body holds the instrument as it is now and no earlier status.
        #expect(change.oldStatus == nil && change.providerOldStatus == nil)
    }

    @Test(
        "Adyen's published 'Card created' example is a change from no status to active; a business account gives none")
    func publishedCreated() throws {
        let provider = try Fixture.provider(ScriptedTransport([]))
        let card = try Self.publishedExample(
            "post-balancePlatform.paymentInstrument.created-01.balancePlatform-paymentInstrument-card-created")
        let events = try provider.verify(
            Fixture.delivery(card, headers: [("HmacSignature", Fixture.sign(card))]), now: now)
        let change = try #require(events.first?.event.cardStatusChanged)
        #expect(events.count == 1)
        #expect(events.first?.providerType == "balancePlatform.paymentInstrument.created")
        #expect(change.card.id == "PI00000000000000000001")
        #expect(change.oldStatus == nil)
        #expect(change.newStatus == .active && change.providerNewStatus == "active")

        let account = try Self.publishedExample(
            "post-balancePlatform.paymentInstrument.created-02.balancePlatform-paymentInstrument-business-account-created"
        )
        #expect(
            try provider.verify(
                Fixture.delivery(account, headers: [("HmacSignature", Fixture.sign(account))]), now: now
            ).isEmpty)
        // The same published body with a wrong signature is refused.
        #expect(throws: CardGatewayError.self) {
            try provider.verify(Fixture.delivery(card, headers: [("HmacSignature", Fixture.sign(account))]), now: now)
        }
    }

    @Test(
        "Adyen's Python library's own HMAC test vector: the adapter verifies it and the simulator signs it identically")
    func libraryTestVector() throws {
        // adyen-python-api-library, test/UtilTest.py `test_is_valid_hmac_payload`: the payload (with its
        // whitespace, kept byte for byte in Fixtures/hmac-payload-vector.txt), the key and the expected signature.
        let payload = try Data(contentsOf: PublishedShape.fixtureURL("hmac-payload-vector.txt"))
        let key = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
        let expected = "fX74xUdztFmaXAn3IusMFFUBUSkLmDQUK0tm8xL6ZTU="
        let simulator = AdyenSimulator(
            credentials: AdyenSimulator.Credentials(
                apiKeys: [:], webServiceUser: "ws", webServicePassword: "pw", hmacKeyHex: key))
        #expect(simulator.hmacSignature(for: payload) == expected)
        let provider = try Fixture.provider(ScriptedTransport([]), hmacKey: key)
        #expect(
            try provider.verify(Fixture.delivery(payload, headers: [("HmacSignature", expected)]), now: now).isEmpty)
        var changed = payload
        changed.append(0x20)
        #expect(throws: CardGatewayError.self) {
            try provider.verify(Fixture.delivery(changed, headers: [("HmacSignature", expected)]), now: now)
        }
    }

    @Test("lock, unlock and cancel on the simulator send paymentInstrument.updated, which the adapter reads as changes")
    func simulatorSendsStatusChanges() async throws {
        // The clock at the published "Card updated" example's time: the simulator writes it as Adyen's example does.
        let simulator = AdyenSimulator(clock: SimulationClock(fixed: Date(timeIntervalSince1970: 1_734_273_723)))
        try await withSimulator(simulator) { handle in
            let provider = try SimulatorFixture.provider(handle)
            let card = CardRef(id: AdyenSimulator.Seed.lockableVisaID)
            let context = OperationContext()
            #expect(simulator.sentWebhooks().isEmpty)
            _ = try await provider.changeStatus(
                CardStatusRequest(card: card, intent: .lock, reason: .lost), context: context)
            _ = try await provider.changeStatus(CardStatusRequest(card: card, intent: .unlock), context: context)
            _ = try await provider.changeStatus(
                CardStatusRequest(card: card, intent: .cancel, reason: .stolen), context: context)
            let sent = simulator.sentWebhooks()
            #expect(sent.map(\.type) == Array(repeating: AdyenSimulator.paymentInstrumentUpdated, count: 3))
            var statuses: [CardStatus] = []
            for webhook in sent {
                let events = try provider.verify(Fixture.delivery(webhook.body, headers: webhook.headers), now: Date())
                let change = try #require(events.first?.event.cardStatusChanged)
                #expect(change.card.id == card.id)
                #expect(change.card.customer == AdyenSimulator.Seed.balanceAccountID)
                #expect(events.first?.id.hasSuffix("|2024-12-15T15:42:03+01:00") == true)
                statuses.append(change.newStatus)
            }
            #expect(statuses == [.suspended, .active, .cancelled])
        }
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
