import CardGateway
import Crypto
import Foundation
import HTTPTypes
import LithicSimulator
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayLithic

/// Standard Webhooks verification and the events, from the simulator's signed deliveries and from Standard Webhooks'
/// published test vector (the signature the document gives as `webhook-signature`'s example).
@Suite("Lithic webhooks", .timeLimit(.minutes(5)))
struct LithicWebhookTests {
    static func delivery(_ signed: LithicSimulator.SignedDelivery) -> WebhookDelivery {
        var fields = HTTPFields()
        for (name, value) in signed.headers {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        return WebhookDelivery(headers: fields, body: signed.body)
    }

    static func provider(webhookSecret: String = Seed.webhookSecret) throws -> LithicProvider {
        try LithicFixture.scripted([], webhookSecret: webhookSecret).0
    }

    @Test("the document's example webhook-signature is Standard Webhooks' test vector, and the verifier accepts it")
    func publishedVector() throws {
        // The vector of the standardwebhooks package (secret, id, timestamp, body); its signature is the first of the
        // document's `webhookSignature` example: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE= v1,bm9l…".
        let document = try String(contentsOfFile: LithicSpec.path, encoding: .utf8)
        let example = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE= v1,bm9ldHUjKzFob2VudXRob2VodWUzMjRvdWVvdW9ldQo="
        #expect(document.contains("example: " + example))
        let secret = Secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let verifier = LithicStandardWebhook(
            key: try #require(LithicStandardWebhook.key(secret)), instance: "lithic", what: "webhook")
        var fields = HTTPFields()
        fields[LithicStandardWebhook.idHeader] = "msg_p5jXN8AQM9LWM0D4loKWxJek"
        fields[LithicStandardWebhook.timestampHeader] = "1614265330"
        fields[LithicStandardWebhook.signatureHeader] = example
        let body = Data(#"{"test": 2432232314}"#.utf8)
        let now = Date(timeIntervalSince1970: 1_614_265_330 + 60)
        #expect(
            try verifier.verify(WebhookDelivery(headers: fields, body: body), now: now)
                == "msg_p5jXN8AQM9LWM0D4loKWxJek")
        #expect(
            LithicSimulator.signature(
                id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: "1614265330", body: body,
                secret: secret.revealedValue) == String(example.prefix { $0 != " " }))
        // Tampered, stale, and a rotated-out signature alone.
        var stale = fields
        stale[LithicStandardWebhook.timestampHeader] = "1614264000"
        var rotated = fields
        rotated[LithicStandardWebhook.signatureHeader] = "v1,bm9ldHUjKzFob2VudXRob2VodWUzMjRvdWVvdW9ldQo="
        for delivery in [
            WebhookDelivery(headers: fields, body: Data(#"{"test": 2432232315}"#.utf8)),
            WebhookDelivery(headers: stale, body: body), WebhookDelivery(headers: rotated, body: body),
        ] {
            let error = gatewayError { _ = try verifier.verify(delivery, now: now) }
            #expect(error?.code == .signatureInvalid)
        }
    }

    @Test("card.updated → cardStatusChanged with old and new states; the event id is webhook-id")
    func cardUpdated() throws {
        let simulator = LithicSimulator()
        let now = Date()
        let signed = simulator.signedCardUpdated(card: Seed.lockableCard, state: "PAUSED", previous: "OPEN", at: now)
        let events = try Self.provider().verify(Self.delivery(signed), now: now)
        #expect(events.count == 1)
        let change = try #require(events.first?.event.cardStatusChanged)
        #expect(change.card.id == Seed.lockableCard)
        #expect(change.oldStatus == .active && change.newStatus == .locked)
        #expect(change.providerOldStatus == "OPEN" && change.providerNewStatus == "PAUSED")
        #expect(events.first?.id == signed.headers.first { $0.0 == "webhook-id" }?.1)
        #expect(events.first?.providerType == "card.updated")
    }

    @Test("tokenization.updated and the deprecated digital_wallet.tokenization_updated → wallet token events")
    func tokenizationUpdated() throws {
        let simulator = LithicSimulator()
        let now = Date()
        for deprecated in [false, true] {
            let signed = simulator.signedTokenizationUpdated(
                token: Seed.activeToken, status: "PAUSED", deprecated: deprecated, at: now)
            let events = try Self.provider().verify(Self.delivery(signed), now: now)
            let token = try #require(events.first?.event.walletTokenUpdated)
            #expect(token.card.id == Seed.walletCard)
            #expect(token.token.id == Seed.activeToken && token.token.status == .suspended)
            #expect(token.token.wallet == .applePay)
        }
        let pending = simulator.signedTokenizationUpdated(token: Seed.activeToken, status: "PENDING_2FA", at: now)
        let events = try Self.provider().verify(Self.delivery(pending), now: now)
        #expect(events.first?.event.walletTokenCreated != nil)
    }

    @Test("tampered, wrong secret, stale, missing headers are signatureInvalid; other event types verify to []")
    func refusals() throws {
        let simulator = LithicSimulator()
        let now = Date()
        let provider = try Self.provider()
        let good = simulator.signedCardUpdated(card: Seed.lockableCard, state: "PAUSED", previous: "OPEN", at: now)
        var tampered = Self.delivery(good)
        tampered.body = Data(
            String(decoding: tampered.body, as: UTF8.self).replacingOccurrences(of: "PAUSED", with: "OPEN").utf8)
        let wrongSecret = Self.delivery(
            simulator.signedCardUpdated(
                card: Seed.lockableCard, state: "PAUSED", previous: "OPEN",
                secret: "whsec_" + Data(repeating: 1, count: 32).base64EncodedString(), at: now))
        let stale = Self.delivery(
            simulator.signedCardUpdated(
                card: Seed.lockableCard, state: "PAUSED", previous: "OPEN", at: now.addingTimeInterval(-301)))
        var bare = Self.delivery(good)
        bare.headers[LithicStandardWebhook.idHeader] = nil
        for delivery in [tampered, wrongSecret, stale, bare] {
            let error = gatewayError { _ = try provider.verify(delivery, now: now) }
            #expect(error?.code == .signatureInvalid)
        }
        let other = simulator.signed(["event_type": "card.created", "card_token": Seed.activeCard], at: now)
        #expect(try provider.verify(Self.delivery(other), now: now).isEmpty)
        let unconfigured = try LithicFixture.scripted([], webhookSecret: nil).0
        #expect(
            gatewayError { _ = try unconfigured.verify(Self.delivery(good), now: now) }?.code == .invalidConfiguration)
    }
}
