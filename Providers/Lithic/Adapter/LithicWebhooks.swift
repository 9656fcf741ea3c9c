@_spi(AdapterSupport) import CardGateway
import Crypto
import Foundation
import HTTPTypes
import Logging

/// Standard Webhooks, as Lithic signs its webhooks and its Auth Stream Access requests (the document's `webhookId`,
/// `webhookTimestamp` and `webhookSignature` parameters; the `lithic` client's `webhooks.verify_signature`, which
/// hands them to the `standardwebhooks` package): `webhook-signature` is a space-separated list of `v1,<Base64>`,
/// each the HMAC-SHA256 of `"{webhook-id}.{webhook-timestamp}.{body}"` keyed with the Base64-decoded part of the
/// `whsec_…` secret; `webhook-timestamp` is Unix seconds, accepted within five minutes either side of now (the
/// package's `webhook_tolerance`). Every comparison is constant-time.
struct LithicStandardWebhook: Sendable {
    /// The `whsec_` secret's key bytes.
    let key: SymmetricKey
    let instance: String
    /// What the secret signs, for messages (`webhooks`, `ASA requests`).
    let what: String

    static let idHeader = HTTPField.Name("webhook-id")!
    static let timestampHeader = HTTPField.Name("webhook-timestamp")!
    static let signatureHeader = HTTPField.Name("webhook-signature")!
    /// `webhook_tolerance = timedelta(minutes=5)` in `standardwebhooks`.
    static let tolerance: TimeInterval = 300

    /// The key of a `whsec_<Base64>` secret (the prefix optional, as in `standardwebhooks`), or nil.
    static func key(_ secret: Secret) -> SymmetricKey? {
        var text = secret.revealedValue.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("whsec_") { text.removeFirst(6) }
        guard let bytes = ByteEncoding.decodeBase64(text), !bytes.isEmpty else { return nil }
        return SymmetricKey(data: bytes)
    }

    /// The `webhook-id` of an authentic delivery; `signatureInvalid` otherwise.
    func verify(_ delivery: WebhookDelivery, now: Date) throws -> String {
        guard let id = delivery.headers[Self.idHeader], !id.isEmpty,
            let timestampText = delivery.headers[Self.timestampHeader], !timestampText.isEmpty,
            let signatures = delivery.headers[Self.signatureHeader], !signatures.isEmpty
        else {
            throw refused("the delivery lacks webhook-id, webhook-timestamp or webhook-signature")
        }
        guard timestampText.allSatisfy(\.isNumber), let seconds = TimeInterval(timestampText) else {
            throw refused("webhook-timestamp is not Unix seconds")
        }
        guard abs(now.timeIntervalSince1970 - seconds) <= Self.tolerance else {
            throw refused("webhook-timestamp is more than five minutes from now")
        }
        var signed = Data("\(id).\(timestampText).".utf8)
        signed.append(delivery.body)
        let expected = Data(HMAC<SHA256>.authenticationCode(for: signed, using: key))
        var matched = false
        for entry in signatures.split(separator: " ") {
            let parts = entry.split(separator: ",", maxSplits: 1)
            guard parts.count == 2, parts[0] == "v1", let given = ByteEncoding.decodeBase64(String(parts[1])) else {
                continue
            }
            if ConstantTime.equals(given, expected) { matched = true }
        }
        guard matched else { throw refused("no webhook-signature matches the body") }
        return id
    }

    private func refused(_ message: String) -> CardGatewayError {
        CardGatewayError(.signatureInvalid, "Lithic \(what): \(message)", provider: instance, providerKind: .lithic)
    }
}

/// Lithic's webhooks as events. The body is the event's payload with its `event_type` (each event of the document's
/// `webhooks` section is `allOf` `{event_type}` and the payload schema); the event's id is the `webhook-id`.
struct LithicWebhookEvents: Sendable {
    let instance: String
    let logger: Logger

    /// `card.updated` (`card-updated`: `card_token`, `state`, `previous_fields`) →
    /// ``GatewayEvent/Kind/cardStatusChanged(_:)`` when the state is among what changed (`previous_fields.state`) or
    /// always when `previous_fields` does not say; `tokenization.updated` and the deprecated
    /// `digital_wallet.tokenization_updated` (`tokenization-updated`, `digital-wallet-tokenization-updated`: `card_token`,
    /// `created`, `tokenization`) → ``GatewayEvent/Kind/walletTokenCreated(_:)`` for a tokenization not active yet,
    /// ``GatewayEvent/Kind/walletTokenUpdated(_:)`` otherwise. Other event types verify to `[]`, logged by name.
    func events(id: String, body: Data) throws -> [GatewayEvent] {
        let wire: LithicWireWebhook
        do {
            wire = try JSONDecoder().decode(LithicWireWebhook.self, from: body)
        } catch {
            throw CardGatewayError(
                .invalidResponse, "Lithic's webhook body could not be read: \(DecodingProblem.describe(error))",
                provider: instance, providerKind: .lithic)
        }
        let type = wire.eventType ?? ""
        switch type {
        case "card.updated":
            guard let card = wire.cardToken, !card.isEmpty, let state = wire.state, !state.isEmpty else {
                return skipped(type)
            }
            let old = wire.previousFields?.state
            if wire.previousFields != nil, old == nil { return [] }
            let change = CardStatusChange(
                card: CardRef(id: card), oldStatus: old.map(LithicMapping.cardStatus),
                newStatus: LithicMapping.cardStatus(state), providerOldStatus: old, providerNewStatus: state)
            return [
                GatewayEvent(
                    id: id, providerKind: .lithic, occurredAt: nil, providerType: type,
                    event: .cardStatusChanged(change))
            ]
        case "tokenization.updated", "digital_wallet.tokenization_updated":
            guard let tokenization = wire.tokenization, let token = LithicMapping.walletToken(tokenization),
                let card = wire.cardToken ?? tokenization.cardToken, !card.isEmpty
            else {
                return skipped(type)
            }
            let event = WalletTokenEvent(card: CardRef(id: card), token: token)
            return [
                GatewayEvent(
                    id: id, providerKind: .lithic, occurredAt: LithicMapping.date(wire.created), providerType: type,
                    event: token.status == .requested ? .walletTokenCreated(event) : .walletTokenUpdated(event))
            ]
        default:
            logger.info(
                "lithic webhook of an event type the adapter does not read: no events",
                metadata: ["provider": .string(instance), "event_type": .string(SafeText.scrub(type, maxLength: 64))])
            return []
        }
    }

    private func skipped(_ type: String) -> [GatewayEvent] {
        logger.warning(
            "lithic webhook skipped: it lacks the members an event needs",
            metadata: ["provider": .string(instance), "event_type": .string(type)])
        return []
    }
}
