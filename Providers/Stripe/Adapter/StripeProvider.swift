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
/// The normalised card lifecycle (listing, issuance, lock, unlock, cancel, wallet-token listing and control)
/// is in StripeLifecycle.swift. Stripe has no card programs, no activation with printed data and no PIN setting
/// in plain text, so this adapter is not a ``CardService``; Stripe's own card and token operations stay
/// available as methods.
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
    let http: ProviderHTTPClient
    private let logger: Logger
    private let now: @Sendable () -> Date

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
        self.http = client.authenticated(by: Self.authentication(configuration))
        self.logger = logger ?? http.logger
        self.now = now
    }

    // MARK: CardLookup

    /// `GET /v1/issuing/cards/{id}`. Wallet tokens are not included (see ``listTokens(card:status:limit:startingAfter:context:)``).
    public func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        try Self.validate(cardID: ref.id)
        return StripeMapping.card(try await fetchCard(ref.id, context: context))
    }

    // MARK: WalletProvisioning

    /// Eligibility from the card (`status` must be active, and `wallets.apple_pay|google_pay.eligible`), the
    /// wallet sheet's data (cardholder name, last four, brand, expiry, `wallets.primary_account_identifier`)
    /// and the card's tokens in that wallet that are not deleted.
    public func offer(for ref: CardRef, wallet: Wallet, context: OperationContext) async throws -> ProvisioningOffer {
        try Self.validate(cardID: ref.id)
        let wire = try await fetchCard(ref.id, context: context)
        let card = StripeMapping.card(wire)
        let flow = descriptor.provisioningFlows[wallet]
        let tokens = flow == nil ? [] : try await walletTokens(card: ref.id, wallet: wallet, context: context)

        var reason: IneligibilityReason?
        let walletInfo: StripeCardWire.Wallets.Wallet? = {
            switch wallet {
            case .applePay: return wire.wallets?.applePay
            case .googlePay: return wire.wallets?.googlePay
            default: return nil
            }
        }()
        if flow == nil {
            reason = .walletNotSupported(wallet)
        } else if card.status != .active {
            reason = .cardNotActive(wire.status)
        } else if let walletInfo {
            if !walletInfo.eligible {
                reason = StripeMapping.ineligibility(walletInfo.ineligibleReason, wallet: wallet)
            }
        } else {
            reason = IneligibilityReason(
                code: "walletNotSupported", message: "Stripe reports no \(wallet) eligibility for this card")
        }
        return ProvisioningOffer(
            card: card.ref, wallet: wallet, eligible: reason == nil, ineligibleReason: reason, flow: flow,
            cardholderName: card.cardholderName, lastFour: card.lastFour, network: card.scheme,
            primaryAccountIdentifier: wire.wallets?.primaryAccountIdentifier, expiry: card.expiry,
            existingTokens: tokens
        )
    }

    /// Mints an ephemeral key for the card: `POST /v1/ephemeral_keys` with `issuing_card=ic_…` and the exact
    /// `Stripe-Version` the app's SDK asked for. The response's JSON is returned byte for byte in
    /// ``EphemeralKey/rawJSON``: hand it to the app unchanged. The key is a bearer credential: mint one per
    /// attempt, never cache or log it.
    public func provision(
        _ request: ProvisioningRequest, context: OperationContext
    ) async throws -> ProvisioningResponse {
        guard descriptor.provisioningFlows[request.wallet] != nil else {
            throw CardGatewayError(
                .unsupported, "Stripe's SDKs cannot push cards to \(request.wallet)", provider: http.instance,
                providerKind: .stripe)
        }
        var problems = ValidationProblems()
        Self.check(cardID: request.card.id, field: "card.id", into: &problems)
        let apiVersion: String
        if let version = request.input.issuerSDKAPIVersion {
            apiVersion = version
            if version.isEmpty {
                problems.add(
                    "input.apiVersion", "is required: pass the API version the Stripe SDK asked for (iOS: 2020-08-27)")
            } else if !StripeAPIVersion.isValid(version) {
                problems.add("input.apiVersion", "must be a Stripe API version such as 2020-08-27")
            }
        } else {
            apiVersion = ""
            problems.add(
                "input",
                "Stripe provisions by ephemeral key: send issuerSDKKey(apiVersion:) with the version the SDK asked for")
        }
        try problems.throwIfAny()

        let (wire, response) = try await createEphemeralKey(
            card: request.card.id, apiVersion: apiVersion, nonce: nil,
            idempotencyScope: "ephemeral_key:\(request.card.id):\(apiVersion)", context: context
        )
        // The key's scope is fixed per card and version, so an operation key reused for a later attempt gets
        // Stripe's replay of the first key (kept 24 hours), which lives about one hour. An expired key is useless to
        // the wallet SDK: say so instead of handing it on.
        if response.header(StripeAPI.idempotentReplayedHeader) == "true",
            StripeMapping.date(wire.expires) <= now().addingTimeInterval(60)
        {
            throw CardGatewayError(
                .conflict,
                "Stripe replayed an ephemeral key minted earlier under this operation's idempotency key, and it has expired; use a new OperationContext.idempotencyKey for a new provisioning attempt",
                provider: http.instance, providerKind: .stripe, httpStatus: response.status,
                requestID: StripeErrors.requestID(response)
            )
        }
        let key = EphemeralKey(
            id: wire.id, rawJSON: SensitiveData(response.body), created: wire.created.map(StripeMapping.date),
            expires: StripeMapping.date(wire.expires), apiVersion: apiVersion
        )
        context.logger.debug(
            "minted Stripe ephemeral key",
            metadata: [
                "stripe.ephemeral_key": .string(wire.id), "stripe.api_version": .string(apiVersion),
                "expires": .stringConvertible(wire.expires),
            ])
        return .ephemeralKey(key)
    }

    /// Does nothing: Stripe's SDK completes provisioning with Stripe directly, and the resulting Issuing token
    /// arrives as an `issuing_token.created` webhook.
    public func confirm(_ confirmation: ProvisioningConfirmation, context: OperationContext) async throws {}

    /// Revokes an ephemeral key before it expires: `DELETE /v1/ephemeral_keys/{id}`.
    ///
    /// - Parameter apiVersion: the `Stripe-Version` to send (the one the key was minted with); nil sends the
    ///   configured account version, if any.
    public func revokeEphemeralKey(id: String, apiVersion: String? = nil, context: OperationContext) async throws {
        var problems = ValidationProblems()
        Self.check(id: id, field: "id", into: &problems)
        if let apiVersion, !StripeAPIVersion.isValid(apiVersion) {
            problems.add("apiVersion", "must be a Stripe API version such as 2020-08-27")
        }
        try problems.throwIfAny()
        // DELETE is idempotent by definition at Stripe: no idempotency key, safe to repeat. A repeat whose first
        // attempt was applied finds the key gone (404): that is the revocation having happened.
        let response = try await send(
            .delete, StripeAPI.ephemeralKey(id), stripeVersion: apiVersion ?? configuration.apiVersion,
            repeatability: .safe, operation: "revoke ephemeral key", context: context
        )
        if response.status == 404 && response.attempts > 1 { return }
        _ = try decode(StripeEphemeralKeyWire.self, response, object: "ephemeral_key", \.object, what: "ephemeral key")
    }

    /// `POST /v1/ephemeral_keys` with `issuing_card` (and the front end's `nonce` for Issuing Elements), pinned by
    /// `Stripe-Version: apiVersion`: the one code path that mints ephemeral keys, for wallet provisioning and for card
    /// reveal. Checks that the answer is an `ephemeral_key` with a secret, scoped to the card.
    ///
    /// - Parameter idempotencyScope: the scope of the `Idempotency-Key` derived from the operation's key, and the key
    ///   reused by the transport's retries; nil sends the request once, never repeated once it may have reached Stripe,
    ///   under a fresh random key, so that no later call is ever answered with Stripe's replay of this key (a reveal
    ///   key: its nonce is single-use).
    func createEphemeralKey(
        card: String, apiVersion: String, nonce: Secret?, idempotencyScope: String?, context: OperationContext
    ) async throws -> (StripeEphemeralKeyWire, ProviderResponse) {
        var form = StripeForm()
        form.add("issuing_card", card)
        if let nonce { form.add("nonce", nonce.revealedValue) }
        var headers = HTTPFields()
        let repeatability: ProviderRequest.Repeatability
        if let idempotencyScope {
            repeatability = .idempotent(header: StripeAPI.idempotencyKeyHeader, scope: idempotencyScope)
        } else {
            headers[StripeAPI.idempotencyKeyHeader] = UUID().uuidString.lowercased()
            repeatability = .never
        }
        let response = try await send(
            .post, StripeAPI.ephemeralKeys, form: form, headers: headers, stripeVersion: apiVersion,
            repeatability: repeatability, operation: "create ephemeral key", context: context
        )
        let wire = try decode(
            StripeEphemeralKeyWire.self, response, object: "ephemeral_key", \.object, what: "ephemeral key")
        guard let secret = wire.secret, !secret.isEmpty else {
            throw invalidResponse("Stripe's ephemeral key has no secret", response)
        }
        if let associated = wire.associatedObjects, !associated.isEmpty,
            !associated.contains(where: { $0.id == card && $0.type == "issuing.card" })
        {
            throw invalidResponse("Stripe's ephemeral key is not scoped to the requested card", response)
        }
        return (wire, response)
    }

    // MARK: Cards

    /// `GET /v1/issuing/cards` with cursor paging and Stripe's filters.
    public func listCards(
        _ query: StripeCardListQuery = StripeCardListQuery(), context: OperationContext
    ) async throws -> StripeList<Card> {
        var problems = ValidationProblems()
        var items: [(name: String, value: String)] = []
        if let limit = query.limit {
            problems.require(StripeAPI.listLimitRange.contains(limit), "limit", "must be from 1 to 100")
            items.append(("limit", String(limit)))
        }
        if let after = query.startingAfter {
            Self.check(id: after, field: "startingAfter", into: &problems)
            items.append(("starting_after", after))
        }
        if let before = query.endingBefore {
            Self.check(id: before, field: "endingBefore", into: &problems)
            items.append(("ending_before", before))
        }
        problems.require(
            query.startingAfter == nil || query.endingBefore == nil, "endingBefore",
            "cannot be combined with startingAfter")
        if let status = query.status {
            if let value = StripeMapping.stripeCardStatus(status) {
                items.append(("status", value))
            } else {
                problems.add("status", "Stripe cards are active, inactive or cancelled, not \(status)")
            }
        }
        if let type = query.type {
            if let value = StripeMapping.stripeCardType(type) {
                items.append(("type", value))
            } else {
                problems.add("type", "must be physical or virtual")
            }
        }
        if let cardholder = query.cardholder {
            Self.check(id: cardholder, field: "cardholder", into: &problems)
            items.append(("cardholder", cardholder))
        }
        try problems.throwIfAny()
        let response = try await send(
            .get, StripeAPI.issuingCards, query: items, operation: "list cards", context: context)
        let list = try decode(
            StripeListWire<StripeCardWire>.self, response, object: "list", \.object, what: "card list")
        let cards = list.data.map(StripeMapping.card)
        let hasMore = list.hasMore ?? false
        // Paging backwards (ending_before), has_more speaks of items before this page: the cursor to follow is
        // the first item's id, as ending_before. Paging forwards, it is the last item's id, as starting_after.
        if query.endingBefore != nil {
            return StripeList(
                items: cards, hasMore: hasMore, nextStartingAfter: nil,
                previousEndingBefore: hasMore ? cards.first?.id : nil)
        }
        return StripeList(
            items: cards, hasMore: hasMore, nextStartingAfter: hasMore ? cards.last?.id : nil,
            previousEndingBefore: query.startingAfter != nil ? cards.first?.id : nil
        )
    }

    /// Activates, deactivates or cancels a card: `POST /v1/issuing/cards/{id}` with `status` active, inactive or
    /// canceled (final at Stripe), and for a cancellation an optional `cancellation_reason` lost or stolen.
    public func updateCardStatus(
        card ref: CardRef, status: CardStatus, reason: String? = nil, context: OperationContext
    ) async throws -> Card {
        var problems = ValidationProblems()
        Self.check(cardID: ref.id, field: "card.id", into: &problems)
        let stripeStatus = StripeMapping.stripeCardStatus(status)
        if stripeStatus == nil {
            problems.add("status", "Stripe cards can be set active, inactive or cancelled, not \(status)")
        }
        if let reason {
            if status != .cancelled {
                problems.add("reason", "a reason is only sent with a cancellation")
            } else if !StripeAPI.settableCancellationReasons.contains(reason) {
                problems.add("reason", "must be lost or stolen")
            }
        }
        try problems.throwIfAny()
        var form = StripeForm()
        form.add("status", stripeStatus ?? "")
        if let reason { form.add("cancellation_reason", reason) }
        let response = try await send(
            .post, StripeAPI.issuingCard(ref.id), form: form,
            repeatability: .idempotent(
                header: StripeAPI.idempotencyKeyHeader,
                scope: "card_status:\(ref.id):\(stripeStatus ?? ""):\(reason ?? "")"),
            operation: "update card status", context: context
        )
        return StripeMapping.card(
            try decode(StripeCardWire.self, response, object: "issuing.card", \.object, what: "issuing card"))
    }

    // MARK: Tokens

    /// `GET /v1/issuing/tokens?card=…` with cursor paging.
    public func listTokens(
        card ref: CardRef, status: WalletTokenStatus? = nil, limit: Int? = nil, startingAfter: String? = nil,
        context: OperationContext
    ) async throws -> StripeList<StripeIssuingToken> {
        var problems = ValidationProblems()
        Self.check(cardID: ref.id, field: "card.id", into: &problems)
        var items: [(name: String, value: String)] = [("card", ref.id)]
        if let status {
            if status == .unknown {
                problems.add("status", "must be requested, active, suspended or deleted")
            } else {
                items.append(("status", status.rawValue))
            }
        }
        if let limit {
            problems.require(StripeAPI.listLimitRange.contains(limit), "limit", "must be from 1 to 100")
            items.append(("limit", String(limit)))
        }
        if let startingAfter {
            Self.check(id: startingAfter, field: "startingAfter", into: &problems)
            items.append(("starting_after", startingAfter))
        }
        try problems.throwIfAny()
        let response = try await send(
            .get, StripeAPI.issuingTokens, query: items, operation: "list tokens", context: context)
        let list = try decode(
            StripeListWire<StripeTokenWire>.self, response, object: "list", \.object, what: "token list")
        let tokens = list.data.map(Self.issuingToken)
        let hasMore = list.hasMore ?? false
        return StripeList(items: tokens, hasMore: hasMore, nextStartingAfter: hasMore ? tokens.last?.id : nil)
    }

    /// `GET /v1/issuing/tokens/{id}`.
    public func token(id: String, context: OperationContext) async throws -> StripeIssuingToken {
        var problems = ValidationProblems()
        Self.check(id: id, field: "id", into: &problems)
        try problems.throwIfAny()
        let response = try await send(.get, StripeAPI.issuingToken(id), operation: "get token", context: context)
        return Self.issuingToken(
            try decode(StripeTokenWire.self, response, object: "issuing.token", \.object, what: "issuing token"))
    }

    /// Activates, suspends or deletes (final) a token: `POST /v1/issuing/tokens/{id}` with `status`.
    public func updateToken(
        id: String, status: WalletTokenStatus, context: OperationContext
    ) async throws -> StripeIssuingToken {
        var problems = ValidationProblems()
        Self.check(id: id, field: "id", into: &problems)
        let value = StripeMapping.stripeTokenStatus(status)
        if value == nil { problems.add("status", "a token can be set active, suspended or deleted, not \(status)") }
        try problems.throwIfAny()
        var form = StripeForm()
        form.add("status", value ?? "")
        let response = try await send(
            .post, StripeAPI.issuingToken(id), form: form,
            repeatability: .idempotent(
                header: StripeAPI.idempotencyKeyHeader, scope: "token_status:\(id):\(value ?? "")"),
            operation: "update token", context: context
        )
        return Self.issuingToken(
            try decode(StripeTokenWire.self, response, object: "issuing.token", \.object, what: "issuing token"))
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

    /// The card's tokens in `wallet` that are not deleted, over as many pages as needed (bounded). The tokens
    /// API is in preview: an account without access (403) gets an offer without existing tokens.
    private func walletTokens(card: String, wallet: Wallet, context: OperationContext) async throws -> [WalletToken] {
        var tokens: [WalletToken] = []
        var cursor: String?
        do {
            for _ in 0..<StripeAPI.maxTokenPages {
                let page = try await listTokens(
                    card: CardRef(id: card), limit: StripeAPI.listLimitRange.upperBound, startingAfter: cursor,
                    context: context)
                tokens += page.items.map(\.token).filter { $0.wallet == wallet && $0.status != .deleted }
                guard page.hasMore, let next = page.nextStartingAfter else { break }
                cursor = next
            }
        } catch let error as CardGatewayError where error.code == .permissionDenied {
            context.logger.warning(
                "Stripe refused listing issuing tokens; the offer has no existing tokens",
                metadata: [
                    "provider": .string(http.instance), "error.code": .string(error.code.rawValue),
                ])
            return []
        }
        return tokens
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
        let value = try response.decode(
            T.self, provider: "Stripe", what: what, instance: http.instance, kind: .stripe,
            requestID: StripeErrors.requestID(response)
        )
        if let object = value[keyPath: objectField], object != expected {
            throw invalidResponse("Stripe answered with an object of another type than \(what)", response)
        }
        return value
    }

    func invalidResponse(_ message: String, _ response: ProviderResponse) -> CardGatewayError {
        CardGatewayError(
            .invalidResponse, message, provider: http.instance, providerKind: .stripe, httpStatus: response.status,
            requestID: StripeErrors.requestID(response), mayHaveReachedProvider: true
        )
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
