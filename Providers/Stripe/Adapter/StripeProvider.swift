@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Logging

/// Stripe Issuing: card look-ups, wallet provisioning by ephemeral key for Stripe's mobile SDKs (Apple Pay and
/// Google Pay), Issuing tokens, and webhooks.
///
/// Provisioning at Stripe is done by the app's Stripe SDK: the backend only mints an ephemeral key for one card,
/// pinned to the API version the SDK asks for, and returns Stripe's JSON to the app byte for byte. The SDK then
/// fetches the encrypted pass data from Stripe itself, so ``confirm(_:context:)`` has nothing to record.
///
/// The normalised card lifecycle (listing, issuance, lock, unlock, cancel, wallet-token listing and control), and
/// Stripe's own card and token calls beneath it, are in StripeLifecycle.swift. Stripe has no card programs, no
/// activation with printed data and no PIN setting in plain text, so this adapter is not a ``CardService``.
public struct StripeProvider: CardListing, CardIssuance, CardStatusControl, WalletTokenListing, WalletTokenControl,
    WalletProvisioning, WebhookVerifying
{
    /// Card lookup, listing, issuance, locking and cancellation; wallet-token listing and control; Apple Pay and
    /// Google Pay by issuer SDK key; card details and PIN shown by Issuing Elements (client nonce), PIN change by a PIN
    /// the front end encrypted under Stripe's public key (see StripeCardReveal.swift); webhooks; real-time
    /// authorizations (`issuing_authorization.request`, StripeAuthorizations.swift).
    public static let descriptor = ProviderDescriptor(
        kind: .stripe,
        capabilities: [
            .cardLookup, .cardListing, .cardIssuance, .cardLocking, .cardCancellation, .walletTokenListing,
            .walletTokenControl,
            .walletProvisioning, .cardDetailsReveal, .pinReveal, .pinChange, .webhooks, .authorizations,
        ],
        provisioningFlows: [.applePay: .issuerSDKKey, .googlePay: .issuerSDKKey],
        revealFlows: [.cardDetails: .clientNonce, .pinReveal: .clientNonce, .pinChange: .encryptedPIN],
        authorizationDeadline: StripeAPI.authorizationDeadline
    )

    public var descriptor: ProviderDescriptor { Self.descriptor }

    let configuration: StripeConfiguration
    /// The instance's client with Stripe's authentication, and the plumbing of every call (``StripeErrors`` for its
    /// errors). Stripe's own `send` below shapes form bodies and versions, and its `decode` checks the status and the
    /// answer's `object`.
    let calls: ProviderCalls
    var http: ProviderHTTPClient { calls.http }
    private let logger: Logger
    let now: @Sendable () -> Date

    /// Builds an instance from configuration (what ``ProviderFactory/stripe`` does). Throws
    /// `invalidConfiguration` naming every problem.
    public init(setup: ProviderSetup) throws {
        try self.init(setup: setup, options: setup.options(StripeOptions.self))
    }

    /// Builds an instance from configuration with its options already decoded.
    public init(setup: ProviderSetup, options: StripeOptions) throws {
        let configuration = StripeConfiguration(
            secretKey: try setup.credential("secretKey"),
            webhookSecret: setup.optionalCredential("webhookSecret"),
            previousWebhookSecret: setup.optionalCredential("previousWebhookSecret"),
            authorizationWebhookSecret: setup.optionalCredential("authorizationWebhookSecret"),
            stripeAccount: options.stripeAccount,
            apiVersion: options.apiVersion
        )
        try self.init(
            configuration: configuration, http: setup.http, environment: setup.configuration.environment,
            logger: setup.logger, now: setup.now)
    }

    /// Builds an instance directly.
    ///
    /// - Parameters:
    ///   - environment: "sandbox" or "live" when known, to refuse a key of the other mode.
    ///   - now: the clock an ephemeral key's expiry is compared with.
    @_spi(AdapterSupport) public init(
        configuration: StripeConfiguration, http: ProviderHTTPClient, environment: String? = nil, logger: Logger? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        let problems = configuration.problems(environment: environment)
        if !problems.isEmpty {
            let instance = http.instance
            let named = problems.map {
                CardGatewayError.FieldError(field: "providers.\(instance).\($0.field)", message: $0.message)
            }
            throw CardGatewayError(
                .invalidConfiguration,
                named.count == 1
                    ? named[0].description
                    : "\(named.count) problems: " + named.map(\.description).joined(separator: "; "),
                provider: instance, providerKind: .stripe, fieldErrors: named
            )
        }
        var client = http
        client.idempotencyKeyMaxLength = StripeAPI.idempotencyKeyMaxLength
        client.retryAdvice = { response in StripeErrors.shouldRetry(response) }
        self.configuration = configuration
        self.calls = ProviderCalls(
            client.authenticated(by: Self.authentication(configuration)), provider: "Stripe", kind: .stripe,
            requestID: { StripeErrors.requestID($0) },
            errors: { [instance = http.instance] response, _ in StripeErrors.error(for: response, instance: instance) })
        self.logger = logger ?? http.logger
        self.now = now
    }

    // MARK: CardLookup

    /// `GET /v1/issuing/cards/{id}`. Wallet tokens are not included (see ``listTokens(card:status:limit:startingAfter:context:)``).
    public func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        try Self.validate(cardID: ref.id)
        return StripeMapping.card(try await fetchCard(ref.id, context: context))
    }

    // MARK: WebhookVerifying

    /// Checks `Stripe-Signature` over the raw body (any `v1` by the webhook secret or the previous one, the
    /// timestamp within the tolerance either way), then maps `issuing_card.created/updated` to
    /// `cardStatusChanged` and `issuing_token.created/updated` to `walletTokenCreated/Updated`. Other event
    /// types verify and produce no events.
    public func verify(_ delivery: WebhookDelivery, now: Date) throws -> [GatewayEvent] {
        let secrets = [configuration.webhookSecret, configuration.previousWebhookSecret].compactMap { $0 }
        guard !secrets.isEmpty else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).credentials.webhookSecret is not configured, so Stripe webhooks cannot be verified",
                provider: http.instance, providerKind: .stripe
            )
        }
        try StripeWebhookVerifier(secrets: secrets, tolerance: configuration.webhookTolerance).verify(
            delivery, now: now)
        return try StripeEvents.events(from: delivery.body)
    }

    // MARK: Internals

    func fetchCard(_ id: String, context: OperationContext) async throws -> StripeCardWire {
        var query: [(name: String, value: String)] = []
        if StripeAPI.expandCardholder { query.append(("expand[]", "cardholder")) }
        let response = try await send(
            .get, StripeAPI.issuingCard(id), query: query, operation: "get card", context: context)
        return try decode(StripeCardWire.self, response, object: "issuing.card", \.object, what: "issuing card")
    }

    static func issuingToken(_ wire: StripeTokenWire) -> StripeIssuingToken {
        StripeIssuingToken(
            card: CardRef(id: wire.card.id), token: StripeMapping.token(wire),
            deviceFingerprint: wire.deviceFingerprint,
            networkUpdatedAt: wire.networkUpdatedAt.map(StripeMapping.date)
        )
    }

    /// Stripe's authentication as one middleware: the secret key as a bearer token, the configured
    /// `Stripe-Version` (unless the request carries its own) and `Stripe-Account` for Connect.
    static func authentication(_ configuration: StripeConfiguration) -> HeaderAuthentication {
        var fields: [(name: HTTPField.Name, value: Secret)] = [
            (.authorization, Secret("Bearer " + configuration.secretKey.revealedValue))
        ]
        if let version = configuration.apiVersion { fields.append((StripeAPI.stripeVersionHeader, Secret(version))) }
        if let account = configuration.stripeAccount { fields.append((StripeAPI.stripeAccountHeader, Secret(account))) }
        return HeaderAuthentication(fields)
    }

    func send(
        _ method: HTTPRequest.Method, _ path: String, query: [(name: String, value: String)] = [],
        form: StripeForm? = nil, headers extra: HTTPFields = [:],
        stripeVersion: String? = nil, repeatability: ProviderRequest.Repeatability? = nil, operation: String,
        context: OperationContext
    ) async throws -> ProviderResponse {
        var headers = extra
        // A request's own version (an ephemeral key's, the SDK's) wins; the authentication middleware adds the
        // configured one to every other request.
        if let stripeVersion { headers[StripeAPI.stripeVersionHeader] = stripeVersion }
        var body: Data?
        if let form {
            headers[.contentType] = "application/x-www-form-urlencoded"
            body = form.body
        }
        let request = ProviderRequest(
            method, path, query: query, headers: headers, body: body, repeatability: repeatability, operation: operation
        )
        return try await http.send(request, context: context)
    }

    /// The decoded object of a successful response; Stripe's error for any other.
    func decode<T: Decodable>(
        _ type: T.Type, _ response: ProviderResponse, object expected: String, _ objectField: KeyPath<T, String?>,
        what: String
    ) throws -> T {
        guard response.isSuccess else { throw StripeErrors.error(for: response, instance: http.instance) }
        let value = try calls.decode(T.self, from: response, what: what)
        if let object = value[keyPath: objectField], object != expected {
            throw calls.invalidResponse("Stripe answered with an object of another type than \(what)", response)
        }
        return value
    }

    static func validate(cardID: String) throws {
        var problems = ValidationProblems()
        check(cardID: cardID, field: "card.id", into: &problems)
        try problems.throwIfAny()
    }

    static func check(cardID: String, field: String, into problems: inout ValidationProblems) {
        check(id: cardID, field: field, into: &problems)
    }

    /// A Stripe id (at most 255 characters, Stripe's documented limit for ids and keys).
    static func check(id: String, field: String, into problems: inout ValidationProblems) {
        ProviderIDs.check(id, field: field, what: "a Stripe id", maxLength: 255, into: &problems)
    }
}
