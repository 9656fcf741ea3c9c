@_spi(AdapterSupport) import CardGateway
import Crypto
import Foundation
import HTTPTypes
import Logging

/// Marqeta's webhook checks, as its "Signature verification" guide documents them: every delivery carries the HTTP
/// Basic credentials configured on the webhook (`config.basic_auth_username` / `basic_auth_password`, "required"),
/// and, when the webhook has a `secret`, `X-Marqeta-Signature`: the lower-case hex HMAC of the raw body keyed with
/// the secret. The guide names HMAC-SHA256 (and, in its older revision, HMAC-SHA1); a 64-character signature is
/// checked as SHA-256 and a 40-character one as SHA-1. Both comparisons are constant-time. Marqeta signs no
/// timestamp, so a replay cannot be told from a retry: receivers de-duplicate by event token.
struct MarqetaWebhookVerifier: Sendable {
    var username: Secret?
    var password: Secret?
    var secret: Secret?
    var instance: String
    var logger: Logger

    var isConfigured: Bool { username != nil || secret != nil }

    /// Throws `signatureInvalid` unless every configured check passes; then the events.
    func verify(_ delivery: WebhookDelivery) throws -> [GatewayEvent] {
        guard isConfigured else {
            throw CardGatewayError(
                .invalidConfiguration,
                "neither webhookUsername/webhookPassword nor webhookSecret is configured for \(instance), so Marqeta webhooks cannot be verified",
                provider: instance, providerKind: .marqeta
            )
        }
        if let username, let password {
            let expected =
                "Basic " + Data("\(username.revealedValue):\(password.revealedValue)".utf8).base64EncodedString()
            let given = delivery.headers[.authorization] ?? ""
            guard ConstantTime.equals(Array(given.utf8), Array(expected.utf8)) else {
                throw refused("the delivery's HTTP Basic credentials are not the webhook's")
            }
        }
        if let secret {
            guard let header = delivery.headers[MarqetaAPI.signatureHeader]?.trimmingCharacters(in: .whitespaces),
                !header.isEmpty
            else {
                throw refused("the delivery has no X-Marqeta-Signature")
            }
            guard let given = ByteEncoding.decodeHex(header.lowercased()), given.count == 32 || given.count == 20 else {
                throw refused("X-Marqeta-Signature is not a hex HMAC-SHA256 or HMAC-SHA1")
            }
            let key = SymmetricKey(data: Data(secret.revealedValue.utf8))
            let expected: Data
            if given.count == 32 {
                expected = Data(HMAC<SHA256>.authenticationCode(for: delivery.body, using: key))
            } else {
                expected = Data(HMAC<Insecure.SHA1>.authenticationCode(for: delivery.body, using: key))
            }
            guard ConstantTime.equals(given, expected) else {
                throw refused("X-Marqeta-Signature does not match the body")
            }
        }
        return try events(delivery.body)
    }

    /// `cardtransitions` → ``GatewayEvent/Kind/cardStatusChanged(_:)``; `digitalwallettokentransitions` →
    /// ``GatewayEvent/Kind/walletTokenCreated(_:)`` for a token in `REQUESTED`, ``GatewayEvent/Kind/walletTokenUpdated(_:)``
    /// otherwise. Other categories (transactions, users, pings) give no events and are logged at debug level.
    func events(_ body: Data) throws -> [GatewayEvent] {
        let webhook: MarqetaWireWebhook
        do {
            webhook = try JSONDecoder().decode(MarqetaWireWebhook.self, from: body)
        } catch {
            throw CardGatewayError(
                .invalidResponse, "Marqeta's webhook body could not be read: \(DecodingProblem.describe(error))",
                provider: instance, providerKind: .marqeta
            )
        }
        var events: [GatewayEvent] = []
        for event in webhook.cardtransitions ?? [] {
            guard let card = event.cardToken, let state = event.state else { continue }
            let change = CardStatusChange(
                card: CardRef(id: card, customer: event.userToken), oldStatus: nil,
                newStatus: MarqetaMapping.cardStatus(state), providerOldStatus: nil,
                providerNewStatus: state
            )
            events.append(
                GatewayEvent(
                    id: event.token ?? "", providerKind: .marqeta, occurredAt: MarqetaMapping.date(event.createdTime),
                    providerType: "cardtransitions." + (event.type ?? state.lowercased()),
                    event: .cardStatusChanged(change)
                ))
        }
        for event in webhook.digitalwallettokentransitions ?? [] {
            guard var wire = event.digitalWalletToken, let card = wire.cardToken else { continue }
            if wire.state == nil { wire.state = event.state }
            guard let token = MarqetaMapping.walletToken(wire) else { continue }
            let tokenEvent = WalletTokenEvent(card: CardRef(id: card), token: token)
            events.append(
                GatewayEvent(
                    id: event.token ?? "", providerKind: .marqeta, occurredAt: MarqetaMapping.date(event.createdTime),
                    providerType: "digitalwallettokentransitions." + (event.type ?? token.providerStatus.lowercased()),
                    event: token.status == .requested
                        ? .walletTokenCreated(tokenEvent) : .walletTokenUpdated(tokenEvent)
                ))
        }
        if events.isEmpty {
            logger.debug(
                "marqeta webhook without card or digital wallet token transitions",
                metadata: ["provider": .string(instance)])
        }
        return events
    }

    private func refused(_ message: String) -> CardGatewayError {
        CardGatewayError(.signatureInvalid, message, provider: instance, providerKind: .marqeta)
    }
}
