@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Logging

/// The Lithic adapter: card look-up, listing and issuance; lock (`PAUSED`), unlock (`OPEN`) and cancel (`CLOSED`,
/// final) by `PATCH /v1/cards/{card_token}`; digital wallet tokenizations listed, paused, unpaused and deactivated;
/// Apple Pay, Google Pay and Samsung Pay push provisioning (`POST /v1/cards/{card_token}/provision`); card details and
/// PIN setting in Lithic's frames by embed sessions (LithicCardReveal.swift); Standard Webhooks verification and
/// events (LithicWebhooks.swift); Auth Stream Access (LithicAuthorizations.swift).
///
/// Lithic addresses cards by their token (a UUID) alone; ``CardRef/customer`` is the account token, which only
/// narrows a listing. Every request carries the API key as the whole `Authorization` header (the document's
/// `ApiKeyAuth`; the `lithic` client's `auth_headers`). Card creation carries an `Idempotency-Key` and is retried like
/// any idempotent write; the other writes are sent once.
public struct LithicProvider: CardListing, CardIssuance, CardStatusControl, WalletTokenListing, WalletTokenControl,
    WebhookVerifying, CustomStringConvertible
{
    /// What every Lithic instance can do.
    public static let descriptor = ProviderDescriptor(
        kind: .lithic,
        capabilities: [
            .cardLookup, .cardListing, .cardIssuance, .cardLocking, .cardCancellation, .walletTokenListing,
            .walletTokenControl, .walletProvisioning, .webhooks, .cardDetailsReveal, .pinChange,
            .authorizations,
        ],
        provisioningFlows: [
            .applePay: .encryptedPayload, .googlePay: .encryptedPayload, .samsungPay: .encryptedPayload,
        ],
        revealFlows: [.cardDetails: .clientAccessToken, .pinChange: .secureLink],
        // Lithic's document gives no ASA deadline (a timeout declines with CUSTOMER_ASA_TIMEOUT): two seconds,
        // unconfirmed (README, "Unverified facts").
        authorizationDeadline: .seconds(2)
    )

    /// The same as ``descriptor`` (static).
    public var descriptor: ProviderDescriptor { Self.descriptor }

    public let options: LithicOptions
    /// The instance's client with the API key, and the plumbing of every call (``LithicErrors`` for its errors).
    let calls: ProviderCalls
    var http: ProviderHTTPClient { calls.http }
    /// The webhooks' verifier (the event subscription's `whsec_` secret), when configured.
    let webhook: LithicStandardWebhook?
    /// The ASA requests' verifier (the ASA HMAC secret), when configured.
    let asa: LithicStandardWebhook?
    let webhookEvents: LithicWebhookEvents

    /// Builds the adapter from configuration.
    public init(setup: ProviderSetup) throws {
        try self.init(setup: setup, options: setup.options(LithicOptions.self))
    }

    /// Builds the adapter from configuration with its options already decoded.
    public init(setup: ProviderSetup, options: LithicOptions) throws {
        try self.init(
            http: setup.http, apiKey: setup.credential("apiKey"), options: options,
            webhookSecret: setup.optionalCredential("webhookSecret"), asaSecret: setup.optionalCredential("asaSecret"))
    }

    /// Builds the adapter directly.
    /// - Parameters:
    ///   - http: the client for the instance (its base URL is the host, without `/v1`).
    ///   - apiKey: the API key, sent as the `Authorization` header.
    ///   - options: the embed sessions' target origin.
    ///   - webhookSecret: the event subscription's `whsec_…` secret.
    ///   - asaSecret: the ASA HMAC secret (`whsec_…`).
    @_spi(AdapterSupport) public init(
        http: ProviderHTTPClient, apiKey: Secret, options: LithicOptions = LithicOptions(),
        webhookSecret: Secret? = nil, asaSecret: Secret? = nil
    ) throws {
        guard !apiKey.revealedValue.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw CardGatewayError(
                .invalidConfiguration, "providers.\(http.instance).credentials.apiKey is empty",
                provider: http.instance, providerKind: .lithic)
        }
        func verifier(_ secret: Secret?, _ name: String, _ what: String) throws -> LithicStandardWebhook? {
            guard let secret else { return nil }
            guard let key = LithicStandardWebhook.key(secret) else {
                throw CardGatewayError(
                    .invalidConfiguration,
                    "providers.\(http.instance).credentials.\(name) must be a whsec_ secret (Base64 after the prefix)",
                    provider: http.instance, providerKind: .lithic)
            }
            return LithicStandardWebhook(key: key, instance: http.instance, what: what)
        }
        self.webhook = try verifier(webhookSecret, "webhookSecret", "webhook")
        self.asa = try verifier(asaSecret, "asaSecret", "ASA request")
        self.webhookEvents = LithicWebhookEvents(instance: http.instance, logger: http.logger)
        self.options = options
        self.calls = ProviderCalls(
            http.authenticated(by: HeaderAuthentication.apiKey(.authorization, apiKey)), provider: "Lithic",
            kind: .lithic, acceptsJSON: true, requestID: LithicErrors.requestID,
            errors: { [instance = http.instance] response, request in
                // A write Lithic cannot de-duplicate is never called retryable once it may have been acted on.
                LithicErrors.error(for: response, instance: instance, redacting: [apiKey.revealedValue])
                    .answering(request)
            })
    }

    /// Safe to log: the instance, never a key or secret.
    public var description: String {
        "LithicProvider(instance: \(http.instance), webhooks: \(webhook == nil ? "not configured" : "configured"), asa: \(asa == nil ? "not configured" : "configured"))"
    }

    // MARK: Webhooks

    /// Verifies the Standard Webhooks signature (``LithicStandardWebhook``: `webhook-id`, `webhook-timestamp` within
    /// five minutes of `now`, `webhook-signature`) and reads `card.updated`, `tokenization.updated` and the deprecated
    /// `digital_wallet.tokenization_updated` into events whose id is the `webhook-id` (Lithic's de-duplication key).
    public func verify(_ delivery: WebhookDelivery, now: Date) throws -> [GatewayEvent] {
        guard let webhook else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).credentials.webhookSecret is not configured, so Lithic webhooks cannot be verified",
                provider: http.instance, providerKind: .lithic)
        }
        let id = try webhook.verify(delivery, now: now)
        return try webhookEvents.events(id: id, body: delivery.body)
    }

    // MARK: Card lookup

    /// `GET /v1/cards/{card_token}`.
    public func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        try validate(token: ref.id, field: "card.id", what: "a Lithic card token")
        let wire = try await fetchCard(ref.id, context: context)
        return try map(wire, ref: ref)
    }

    // MARK: Plumbing

    func fetchCard(_ token: String, context: OperationContext) async throws -> LithicWireCard {
        let response = try await calls.send(
            ProviderRequest(.get, LithicAPI.card(token), headers: calls.headers(), operation: "get card"),
            context: context)
        return try calls.decode(LithicWireCard.self, from: response, what: "card")
    }

    func map(_ wire: LithicWireCard, ref: CardRef?) throws -> Card {
        do {
            return try LithicMapping.card(wire, requested: ref)
        } catch let error as CardGatewayError {
            throw error.attributed(to: http.instance, kind: .lithic)
        }
    }

    func validate(token: String, field: String, what: String) throws {
        var problems = ValidationProblems()
        ProviderIDs.check(token, field: field, what: what, maxLength: LithicAPI.tokenMaxLength, into: &problems)
        try problems.throwIfAny()
    }
}
