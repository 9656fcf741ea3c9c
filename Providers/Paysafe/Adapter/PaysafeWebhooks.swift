@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Paysafe's prepaid-card webhooks, each `POST`ed to the partner with a `Signature` header [C]
/// (docs.paysafe.com/api/embedded-wallets/webhooks):
///
/// - the card status event, `POST /prepaid/card/status/events`, `{id, cardId, customerId, oldStatus, newStatus}`
///   → ``GatewayEvent/Kind/cardStatusChanged(_:)``;
/// - the card token event, `POST /prepaid/card/token/events`, `CardTokenUpdateEvent {id, cardId, customerId, result,
///   tokenAction, eventId, eventTimestamp}` → ``GatewayEvent/Kind/walletTokensChanged(_:)``. It names the card but no
///   token: the card's tokens are re-read (``PaysafeProvider/walletTokens(of:context:)``) to learn which one changed.
///
/// `verify` tells the two apart by their fields (`newStatus`, `tokenAction`), so one endpoint may take both; a signed
/// body with neither is `invalidResponse`.
///
/// The signature is Paysafe's scheme only (``PaysafeSignature``): `Base64(HMAC-SHA256(key, raw body))`, the key being
/// the Base64-decoded webhook secret, compared in constant time before anything is parsed.
///
/// Paysafe signs no timestamp, so a delivery's age cannot be checked and a captured delivery could be replayed:
/// de-duplicate events by their `id` (the event id is `GatewayEvent.id`) and treat the newest known card status (or
/// a fresh read) as authoritative rather than applying events blindly.
enum PaysafeWebhooks {
    static let providerType = "prepaid.card.status"
    static let tokenProviderType = "prepaid.card.token"

    static func verify(_ delivery: WebhookDelivery, secret: Secret, instance: String) throws -> [GatewayEvent] {
        guard let header = delivery.headers[PaysafeAPI.webhookSignatureHeader]?.trimmingCharacters(in: .whitespaces),
            !header.isEmpty
        else {
            throw signatureError("the Paysafe webhook has no Signature header", instance: instance)
        }
        let key = try PaysafeSignature.key(secret, credential: "webhookSecret", instance: instance)
        guard let signature = PaysafeSignature.decode(header) else {
            throw signatureError(
                "the Paysafe webhook's Signature header is not a Base64 HMAC-SHA256", instance: instance)
        }
        guard MessageAuthentication.verifyHMACSHA256(signature: signature, key: key, message: delivery.body) else {
            throw signatureError("the Paysafe webhook's signature does not match its body", instance: instance)
        }
        let shape: PaysafeWireWebhookShape
        do {
            shape = try JSONDecoder().decode(PaysafeWireWebhookShape.self, from: delivery.body)
        } catch {
            throw invalidBody("it is not a JSON object", instance: instance)
        }
        if shape.hasNewStatus { return [try statusEvent(delivery.body, instance: instance)] }
        if shape.hasTokenAction { return [try tokenEvent(delivery.body, instance: instance)] }
        throw invalidBody(
            "it is neither a card status event (newStatus) nor a card token event (tokenAction)", instance: instance)
    }

    static func statusEvent(_ body: Data, instance: String) throws -> GatewayEvent {
        let event = try decode(PaysafeWireStatusEvent.self, from: body, instance: instance)
        let change = CardStatusChange(
            card: CardRef(id: event.cardId, customer: event.customerId?.value),
            oldStatus: event.oldStatus.map(PaysafeMapping.status),
            newStatus: PaysafeMapping.status(event.newStatus),
            providerOldStatus: event.oldStatus,
            providerNewStatus: event.newStatus
        )
        return GatewayEvent(
            id: event.id.value, providerKind: .paysafe, occurredAt: event.eventTimestamp.flatMap(PaysafeMapping.date),
            providerType: providerType, event: .cardStatusChanged(change))
    }

    /// `CardTokenUpdateEvent`. The event id is `id` ("Change identifier", a required uuid), as for the status event;
    /// `eventId` is optional and undescribed, so it cannot be relied on to tell deliveries apart.
    static func tokenEvent(_ body: Data, instance: String) throws -> GatewayEvent {
        let event = try decode(PaysafeWireTokenEvent.self, from: body, instance: instance)
        let change = WalletTokensChange(
            card: CardRef(id: event.cardId, customer: event.customerId.value),
            status: tokenStatus(event.tokenAction), providerAction: event.tokenAction, providerResult: event.result)
        return GatewayEvent(
            id: event.id.value, providerKind: .paysafe, occurredAt: event.eventTimestamp.flatMap(PaysafeMapping.date),
            providerType: tokenProviderType, event: .walletTokensChanged(change))
    }

    /// `TokenAction` [C]: FROZEN "temporarily inactive" → suspended; UNFROZEN "now active" → active; CANCELLED "no
    /// longer valid" → deleted; REISSUED "reissued with a new identifier" → active. Nil for any other action.
    static func tokenStatus(_ action: String) -> WalletTokenStatus? {
        switch action.uppercased() {
        case "TOKEN_FROZEN": .suspended
        case "TOKEN_UNFROZEN", "TOKEN_REISSUED": .active
        case "TOKEN_CANCELLED": .deleted
        default: nil
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, from body: Data, instance: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw invalidBody(DecodingProblem.describe(error), instance: instance)
        }
    }

    private static func invalidBody(_ problem: String, instance: String) -> CardGatewayError {
        CardGatewayError(
            .invalidResponse, "the signed Paysafe webhook could not be read: \(problem)", provider: instance,
            providerKind: .paysafe)
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
                "providers.\(http.instance).credentials.webhookSecret is required to verify Paysafe webhooks: paste Paysafe's HMAC secret key (Base64 text) as given",
                provider: http.instance, providerKind: .paysafe
            )
        }
        return try PaysafeWebhooks.verify(delivery, secret: secret, instance: http.instance)
    }
}
