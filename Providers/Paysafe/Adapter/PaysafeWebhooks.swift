@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// The card status webhook: Paysafe `POST`s `{id, cardId, customerId, oldStatus, newStatus}` to the partner's
/// `/prepaid/card/status/events` endpoint with a `Signature` header [C].
///
/// The signature is taken to be the HMAC-SHA256 of the raw body under the webhook secret. Its encoding is not
/// documented [U]: lower-case hexadecimal is the expected form; upper-case hex and standard Base64 of the same
/// 32 bytes are accepted too. Comparison is constant-time and happens on the raw bytes before any parsing.
///
/// Paysafe signs no timestamp, so a delivery's age cannot be checked and a captured delivery could be replayed:
/// de-duplicate events by their `id` (the event id is `GatewayEvent.id`) and treat the newest known card status
/// as authoritative (or re-read the card) rather than applying events blindly.
enum PaysafeWebhooks {
    static let providerType = "prepaid.card.status"

    static func verify(_ delivery: WebhookDelivery, secret: Secret, instance: String) throws -> [GatewayEvent] {
        guard let header = delivery.headers[PaysafeAPI.webhookSignatureHeader]?.trimmingCharacters(in: .whitespaces),
            !header.isEmpty
        else {
            throw signatureError("the Paysafe webhook has no Signature header", instance: instance)
        }
        guard let signature = decodeSignature(header) else {
            throw signatureError(
                "the Paysafe webhook's Signature header is not a hex or Base64 HMAC-SHA256", instance: instance)
        }
        let key = Data(secret.revealedValue.utf8)
        guard MessageAuthentication.verifyHMACSHA256(signature: signature, key: key, message: delivery.body) else {
            throw signatureError("the Paysafe webhook's signature does not match its body", instance: instance)
        }
        let event: PaysafeWireStatusEvent
        do {
            event = try JSONDecoder().decode(PaysafeWireStatusEvent.self, from: delivery.body)
        } catch let error as DecodingError {
            throw CardGatewayError(
                .invalidResponse, "the signed Paysafe webhook could not be read: \(DecodingProblem.describe(error))",
                provider: instance, providerKind: .paysafe
            )
        }
        let change = CardStatusChange(
            card: CardRef(id: event.cardId, customer: event.customerId?.value),
            oldStatus: event.oldStatus.map(PaysafeMapping.status),
            newStatus: PaysafeMapping.status(event.newStatus),
            providerOldStatus: event.oldStatus,
            providerNewStatus: event.newStatus
        )
        return [
            GatewayEvent(
                id: event.id.value, providerKind: .paysafe, occurredAt: nil, providerType: providerType,
                event: .cardStatusChanged(change))
        ]
    }

    /// 32 bytes from 64 hex digits (either case) or 44 Base64 characters; nil for anything else.
    static func decodeSignature(_ text: String) -> Data? {
        if text.utf8.count == 64, let bytes = ByteEncoding.decodeHex(text) { return bytes }
        if text.utf8.count == 44, let bytes = ByteEncoding.decodeBase64(text), bytes.count == 32 { return bytes }
        return nil
    }

    private static func signatureError(_ message: String, instance: String) -> CardGatewayError {
        CardGatewayError(.signatureInvalid, message, provider: instance, providerKind: .paysafe)
    }
}

extension PaysafeProvider {
    public func verify(_ delivery: WebhookDelivery, now: Date) throws -> [GatewayEvent] {
        guard let secret = configuration.webhookSecret, !secret.isEmpty else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).credentials.webhookSecret is required to verify Paysafe webhooks",
                provider: http.instance, providerKind: .paysafe
            )
        }
        return try PaysafeWebhooks.verify(delivery, secret: secret, instance: http.instance)
    }
}
