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
            let expected = HeaderAuthentication.basicValue(
                username: username.revealedValue, password: password.revealedValue)
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

    /// The body must be a JSON object whose every member is an array (Marqeta groups events by category: one array
    /// per category, "multiple notifications can be included in a single notification message"); anything else is
    /// `invalidResponse`. Card transitions (`cards`, or `cardtransitions`) → ``GatewayEvent/Kind/cardStatusChanged(_:)``;
    /// digital wallet token transitions (`digitalwallettokentransitions`) → ``GatewayEvent/Kind/walletTokenCreated(_:)``
    /// for a token in `REQUESTED`, ``GatewayEvent/Kind/walletTokenUpdated(_:)`` otherwise. `providerType` is
    /// Marqeta's event type: the category's event name and the object's `type` (`cardtransition.state.suspended`).
    ///
    /// Marqeta sends other categories too (`transactions`, `users`, `pings`, …): a body with none of the keys above
    /// verifies to `[]`, and the categories it had are logged (at info level, names only), so a delivery the adapter
    /// does not read is never silently dropped. An object of a known category without the members an event needs
    /// (`card_token` and `state`; a token's `token`, `card_token` and state) is skipped with a warning naming its
    /// event token.
    func events(_ body: Data) throws -> [GatewayEvent] {
        let categories = try categoryNames(body)
        let webhook: MarqetaWireWebhook
        do {
            webhook = try JSONDecoder().decode(MarqetaWireWebhook.self, from: body)
        } catch {
            throw unreadable("\(DecodingProblem.describe(error))")
        }
        var events: [GatewayEvent] = []
        var skipped: [String] = []
        for event in (webhook.cards ?? []) + (webhook.cardtransitions ?? []) {
            guard let card = event.cardToken, !card.isEmpty, let state = event.state, !state.isEmpty else {
                skipped.append("card transition \(Self.printable(event.token))")
                continue
            }
            let change = CardStatusChange(
                card: CardRef(id: card, customer: event.userToken), oldStatus: nil,
                newStatus: MarqetaMapping.cardStatus(state), providerOldStatus: nil,
                providerNewStatus: state
            )
            events.append(
                GatewayEvent(
                    id: event.token ?? "", providerKind: .marqeta, occurredAt: MarqetaMapping.date(event.createdTime),
                    providerType: "cardtransition." + (event.type ?? "state." + state.lowercased()),
                    event: .cardStatusChanged(change)
                ))
        }
        for event in webhook.digitalwallettokentransitions ?? [] {
            // The transition's `state` is the token's new state; a fuller token object's own state is the fallback.
            guard var wire = event.digitalWalletToken, let card = wire.cardToken, !card.isEmpty else {
                skipped.append("digital wallet token transition \(Self.printable(event.token)) (no card_token)")
                continue
            }
            if let state = event.state, !state.isEmpty { wire.state = state }
            guard let token = MarqetaMapping.walletToken(wire) else {
                skipped.append("digital wallet token transition \(Self.printable(event.token))")
                continue
            }
            let tokenEvent = WalletTokenEvent(card: CardRef(id: card), token: token)
            events.append(
                GatewayEvent(
                    id: event.token ?? "", providerKind: .marqeta, occurredAt: MarqetaMapping.date(event.createdTime),
                    providerType: "digitalwallettokentransition."
                        + (event.type ?? "state." + token.providerStatus.lowercased()),
                    event: token.status == .requested
                        ? .walletTokenCreated(tokenEvent) : .walletTokenUpdated(tokenEvent)
                ))
        }
        if !skipped.isEmpty {
            logger.warning(
                "marqeta webhook objects skipped: they lack the members an event needs",
                metadata: ["provider": .string(instance), "skipped": .string(skipped.joined(separator: ", "))])
        }
        if categories.isDisjoint(with: MarqetaWireWebhook.knownCategories) {
            logger.info(
                "marqeta webhook of categories the adapter does not read: no events",
                metadata: [
                    "provider": .string(instance),
                    "categories": .string(categories.sorted().map { Self.printable($0) }.joined(separator: ",")),
                ])
        }
        return events
    }

    /// The body's top-level keys, after checking that it is a JSON object of arrays.
    private func categoryNames(_ body: Data) throws -> Set<String> {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw unreadable("it is not a JSON object")
        }
        for (key, value) in object where !(value is [Any]) {
            throw unreadable("its member \(Self.printable(key)) is not an array of events")
        }
        return Set(object.keys)
    }

    private func unreadable(_ reason: String) -> CardGatewayError {
        CardGatewayError(
            .invalidResponse, "Marqeta's webhook body could not be read: \(reason)", provider: instance,
            providerKind: .marqeta
        )
    }

    /// An identifier or a key for a log line or an error: letters, digits, `_`, `-` and `.`, at most 64 characters.
    static func printable(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "(none)" }
        let kept = text.unicodeScalars.filter {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                || "_-.".unicodeScalars.contains($0)
        }
        let cleaned = String(String.UnicodeScalarView(kept.prefix(64)))
        return cleaned.isEmpty ? "(unprintable)" : cleaned
    }

    private func refused(_ message: String) -> CardGatewayError {
        CardGatewayError(.signatureInvalid, message, provider: instance, providerKind: .marqeta)
    }
}
