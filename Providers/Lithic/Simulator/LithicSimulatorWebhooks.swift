import CardGatewaySimulation
import Crypto
import Foundation

// Lithic's webhooks as the document's `webhooks` section shapes them (`{event_type}` with the event's payload) and as
// Standard Webhooks signs them: `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
// (`v1,<Base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the Base64-decoded part of the `whsec_` secret) — what
// the `lithic` client's `webhooks.verify_signature` checks with the `standardwebhooks` package.
extension LithicSimulator {
    /// A signed delivery: headers and body.
    public typealias SignedDelivery = (headers: [(String, String)], body: Data)

    /// `card.updated` (`card-updated`): `card_token`, `state` and `previous_fields.state`.
    public func signedCardUpdated(
        card: String, state cardState: String, previous: String, secret: String = Seed.webhookSecret,
        at date: Date? = nil
    ) -> SignedDelivery {
        let payload: [String: Any] = [
            "event_type": "card.updated", "card_token": card, "state": cardState,
            "previous_fields": ["state": previous],
        ]
        return signed(payload, secret: secret, at: date ?? simulationClock.now())
    }

    /// `tokenization.updated` (`tokenization-updated`), or the deprecated `digital_wallet.tokenization_updated`
    /// (`digital-wallet-tokenization-updated`, the same members): `account_token`, `card_token`, `created` and the
    /// `tokenization` as the simulator holds it, with `status` given.
    public func signedTokenizationUpdated(
        token: String, status: String, deprecated: Bool = false, secret: String = Seed.webhookSecret,
        at date: Date? = nil
    ) -> SignedDelivery {
        let now = date ?? simulationClock.now()
        var stored = state.tokens.get(token) ?? Seed.tokenizations[0]
        stored.status = status
        stored.updated = now
        let payload: [String: Any] = [
            "event_type": deprecated ? "digital_wallet.tokenization_updated" : "tokenization.updated",
            "account_token": stored.accountToken, "card_token": stored.cardToken,
            "created": SimulatorDateTime.formatWithoutZone(now, fraction: .microseconds), "tokenization": stored.json(),
        ]
        return signed(payload, secret: secret, at: now)
    }

    /// Signs `payload` (written with sorted keys) as Lithic does, with a `webhook-id` derived from it and the time.
    public func signed(_ payload: [String: Any], secret: String = Seed.webhookSecret, at date: Date) -> SignedDelivery {
        let body =
            (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        let timestamp = String(Int64(date.timeIntervalSince1970.rounded(.down)))
        let digest = Self.hexDigest("webhook|\(timestamp)|" + String(decoding: body, as: UTF8.self), count: 32)
        let chars = Array(digest)
        let id =
            String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-4" + String(chars[13..<16]) + "-8"
            + String(chars[17..<20]) + "-" + String(chars[20..<32])
        return (
            [
                ("Content-Type", "application/json"), ("webhook-id", id), ("webhook-timestamp", timestamp),
                ("webhook-signature", Self.signature(id: id, timestamp: timestamp, body: body, secret: secret)),
            ], body
        )
    }

    /// `v1,<Base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed with the Base64-decoded part of `secret` after
    /// `whsec_` (Standard Webhooks' `Webhook.sign`).
    public static func signature(id: String, timestamp: String, body: Data, secret: String) -> String {
        let encoded = secret.hasPrefix("whsec_") ? String(secret.dropFirst(6)) : secret
        let key = SymmetricKey(data: ByteEncoding.decodeBase64(encoded) ?? Data(encoded.utf8))
        var message = Data("\(id).\(timestamp).".utf8)
        message.append(body)
        return "v1," + Data(HMAC<SHA256>.authenticationCode(for: message, using: key)).base64EncodedString()
    }
}
