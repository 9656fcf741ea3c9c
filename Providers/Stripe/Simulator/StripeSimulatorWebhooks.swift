import CardGatewaySimulation
import Crypto
import Foundation

extension StripeSimulator {
    // MARK: Webhooks

    /// A webhook delivery as Stripe would send it: an `event` wrapping `object` (with `previous_attributes` for
    /// updates) and a `Stripe-Signature: t=…,v1=…` header signed with ``Credentials/webhookSecret`` (or `secret`).
    ///
    /// - Parameters:
    ///   - type: the event type, e.g. `issuing_card.updated` or `issuing_token.created`.
    ///   - object: the event's object; see ``cardObject(_:livemode:)`` and ``tokenObject(_:livemode:)``.
    ///   - timestamp: the signing time; the clock's now by default.
    ///   - secret: another secret to sign with (to test rolled or wrong secrets).
    public func signedWebhook(
        type: String, object: StripeSimulatorJSON, previousAttributes: StripeSimulatorJSON? = nil,
        timestamp: Date? = nil,
        secret: String? = nil
    ) -> (headers: [(String, String)], body: Data) {
        let now = simulationClock.now()
        var data: [(String, StripeSimulatorJSON)] = [("object", object)]
        if let previousAttributes { data.append(("previous_attributes", previousAttributes)) }
        let event: StripeSimulatorJSON = .object([
            ("id", .string(ids.next(prefix: "evt_", length: 24))),
            ("object", "event"),
            ("api_version", .string(Seed.accountAPIVersion)),
            ("created", .int(Int64(now.timeIntervalSince1970))),
            ("data", .object(data)),
            ("livemode", object["livemode"] ?? false),
            ("pending_webhooks", 1),
            ("request", ["id": nil, "idempotency_key": nil]),
            ("type", .string(type)),
        ])
        let body = event.data
        let t = Int64((timestamp ?? now).timeIntervalSince1970)
        var message = Data("\(t).".utf8)
        message.append(body)
        let key = SymmetricKey(data: Data((secret ?? credentials.webhookSecret).utf8))
        let signature = ByteEncoding.hex(HMAC<SHA256>.authenticationCode(for: message, using: key))
        return (
            headers: [
                ("Stripe-Signature", "t=\(t),v1=\(signature)"), ("Content-Type", "application/json; charset=utf-8"),
            ], body: body
        )
    }

    /// The card as Stripe renders it (`issuing.card`), nil when there is no such card.
    public func cardObject(_ id: String, livemode: Bool = false) -> StripeSimulatorJSON? {
        cards.get(id).map { render(card: $0, livemode: livemode) }
    }

    /// The token as Stripe renders it (`issuing.token`), nil when there is no such token.
    public func tokenObject(_ id: String, livemode: Bool = false) -> StripeSimulatorJSON? {
        tokens.get(id).map { render(token: $0, livemode: livemode, expand: []) }
    }
}
