@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Logging

/// Wallet provisioning by ephemeral key for Stripe's mobile SDKs, and the one code path that mints ephemeral keys.
extension StripeProvider {
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
            throw calls.invalidResponse("Stripe's ephemeral key has no secret", response)
        }
        if let associated = wire.associatedObjects, !associated.isEmpty,
            !associated.contains(where: { $0.id == card && $0.type == "issuing.card" })
        {
            throw calls.invalidResponse("Stripe's ephemeral key is not scoped to the requested card", response)
        }
        return (wire, response)
    }

    /// The card's tokens in `wallet` that are not deleted, over as many pages as needed (bounded). The tokens
    /// API is in preview: an account without access (403) gets an offer without existing tokens.
    func walletTokens(card: String, wallet: Wallet, context: OperationContext) async throws -> [WalletToken] {
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
}
