@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Logging

/// The status a network token can be moved to with `PATCH /networkTokens/{id}`.
public enum AdyenNetworkTokenStatus: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Usable again (from `inactive` or `suspended`).
    case active
    /// Temporarily unusable; reversible.
    case suspended
    /// Final: a closed token can never be changed again.
    case closed

    public var description: String { rawValue }
}

/// Adyen Balance Platform adapter: payment instrument look-ups, push provisioning as an issuer SDK relay (the
/// opaque `sdkInput` / `sdkOutput` of Adyen's provisioning SDKs), network tokens and configuration webhooks.
///
/// Provisioning: `provision` with `.issuerSDK(output: nil)` fetches the activation data
/// (`GET /paymentInstruments/{id}/networkTokenActivationData`) and returns its `sdkInput` bytes; each
/// `.issuerSDK(output:)` with the SDK's bytes posts them and returns the *new* `sdkInput` bytes for the SDK.
/// Bytes travel as standard Base64 on the wire and as raw bytes in the model; nothing is re-encoded.
public struct AdyenProvider: WalletProvisioning, WebhookVerifying, CardListing, CardIssuance, CardStatusControl,
    WalletTokenListing, WalletTokenControl, AuthorizationResponding
{
    /// What every Adyen instance can do.
    public static let descriptor = ProviderDescriptor(
        kind: .adyen,
        capabilities: [
            .cardLookup, .cardListing, .cardIssuance, .cardLocking, .cardCancellation, .walletTokenListing,
            .walletTokenControl, .walletProvisioning, .webhooks,
            .cardDetailsReveal, .pinReveal, .pinChange, .authorizations,
        ],
        provisioningFlows: [.applePay: .issuerSDKRelay, .googlePay: .issuerSDKRelay],
        // Card details and PIN: the app's AES key encrypted with Adyen's RSA public key (AdyenCardReveal.swift).
        revealFlows: [
            .cardDetails: .encryptedSessionKey, .pinReveal: .encryptedSessionKey, .pinChange: .encryptedSessionKey,
        ],
        // Relayed authorisation: "If we do not receive the response within two seconds, we apply your fallback
        // logic" (BalancePlatformRelayedAuthorisationNotification-v4, balancePlatform.authorisation.relayed).
        authorizationDeadline: .seconds(2)
    )

    /// The same as ``descriptor`` (static): every Adyen instance can do the same.
    public var descriptor: ProviderDescriptor { Self.descriptor }

    /// The instance's client with the API key, and the plumbing of every call. Adyen's errors name the role the
    /// endpoint needs, so each call names its endpoint family (``send(_:family:context:)``).
    let calls: ProviderCalls
    var http: ProviderHTTPClient { calls.http }
    let apiKey: Secret
    /// The hex-decoded webhook HMAC key, when configured.
    let hmacKey: SensitiveData?
    /// The wall clock public keys' expiry is read against (the gateway's `now`).
    let now: @Sendable () -> Date
    /// Adyen's public keys for card details and PIN, per purpose and format, until their expiry.
    let revealKeys = AdyenRevealKeyCache()
    /// The HTTP Basic credentials Adyen sends with relayed authorisation webhooks, when configured
    /// (AdyenAuthorizations.swift).
    let relayedAuthorisation: AdyenRelayedAuthorisationCredentials?

    /// Builds the adapter from the gateway's setup (credentials `apiKey`, optional `hmacKey`, optional
    /// `authorizationUsername` and `authorizationPassword` for relayed authorisation).
    public init(setup: ProviderSetup) throws {
        try self.init(
            http: setup.http, apiKey: setup.credential("apiKey"), hmacKey: setup.optionalCredential("hmacKey"),
            authorizationUsername: setup.optionalCredential("authorizationUsername"),
            authorizationPassword: setup.optionalCredential("authorizationPassword"), now: setup.now)
    }

    /// Builds the adapter directly.
    ///
    /// - Parameters:
    ///   - http: the client for the instance's base URL (its idempotency-key limit is set to Adyen's 64).
    ///   - apiKey: the Balance Platform API key.
    ///   - hmacKey: the webhook endpoint's HMAC key, in hex as the Customer Area shows it; without it, `verify`
    ///     throws `invalidConfiguration`.
    ///   - authorizationUsername: the user name of the relayed authorisation webhook's HTTP Basic credentials, as set
    ///     in the Balance Platform Customer Area; with `authorizationPassword`, or neither (then relayed
    ///     authorisations are refused with `invalidConfiguration`).
    ///   - authorizationPassword: that password.
    ///   - now: the wall clock the public keys' expiry is read against; the client's clock by default.
    @_spi(AdapterSupport) public init(
        http: ProviderHTTPClient, apiKey: Secret, hmacKey: Secret? = nil, authorizationUsername: Secret? = nil,
        authorizationPassword: Secret? = nil, now: (@Sendable () -> Date)? = nil
    ) throws {
        guard !apiKey.revealedValue.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw CardGatewayError(
                .invalidConfiguration, "providers.\(http.instance).credentials.apiKey is empty",
                provider: http.instance, providerKind: .adyen)
        }
        if let hmacKey {
            guard
                let bytes = ByteEncoding.decodeHex(
                    hmacKey.revealedValue.trimmingCharacters(in: .whitespacesAndNewlines)), !bytes.isEmpty
            else {
                throw CardGatewayError(
                    .invalidConfiguration,
                    "providers.\(http.instance).credentials.hmacKey must be the hexadecimal HMAC key from the Customer Area",
                    provider: http.instance, providerKind: .adyen
                )
            }
            self.hmacKey = SensitiveData(bytes)
        } else {
            self.hmacKey = nil
        }
        self.relayedAuthorisation = try AdyenRelayedAuthorisationCredentials(
            username: authorizationUsername, password: authorizationPassword, instance: http.instance)
        var client = http
        client.idempotencyKeyMaxLength = AdyenAPI.idempotencyKeyMaxLength
        self.calls = ProviderCalls(
            client.authenticated(by: HeaderAuthentication.apiKey(AdyenAPI.apiKeyHeader, apiKey)), provider: "Adyen",
            kind: .adyen, requestID: { $0.header(AdyenAPI.pspReferenceHeader.rawName) }, errors: nil)
        self.apiKey = apiKey
        let clock = http.clock
        self.now = now ?? { clock.date }
    }

    // MARK: Card lookup

    /// The payment instrument as a card (`GET /paymentInstruments/{id}`). Wallet tokens are not fetched here
    /// (that needs another role); see ``networkTokens(for:context:)``. A payment instrument that is not a card
    /// (a `bankAccount`) is refused with `invalidRequest`.
    public func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        try validate(cardID: ref.id)
        let instrument = try await paymentInstrument(ref.id, context: context)
        return try mapCard(instrument, ref: ref)
    }

    // MARK: Network tokens

    /// The card's network tokens, in every status (`GET /paymentInstruments/{id}/networkTokens`).
    public func networkTokens(for card: CardRef, context: OperationContext) async throws -> [WalletToken] {
        try validate(cardID: card.id)
        let response = try await send(
            ProviderRequest(
                .get, AdyenAPI.networkTokens(paymentInstrument: card.id), headers: calls.headers(),
                operation: "list network tokens"),
            family: .networkTokens, context: context
        )
        let list = try calls.decode(AdyenWireListNetworkTokensResponse.self, from: response, what: "network token list")
        return (list.networkTokens ?? []).compactMap(AdyenMapping.walletToken)
    }

    /// One network token (`GET /networkTokens/{id}`).
    public func networkToken(id: String, context: OperationContext) async throws -> WalletToken {
        try validate(tokenID: id)
        let response = try await send(
            ProviderRequest(.get, AdyenAPI.networkToken(id), headers: calls.headers(), operation: "get network token"),
            family: .networkTokens, context: context
        )
        guard
            let token = AdyenMapping.walletToken(
                try calls.decode(AdyenWireGetNetworkTokenResponse.self, from: response, what: "network token").token)
        else {
            throw calls.invalidResponse("Adyen's network token has no id", response)
        }
        return token
    }

    /// Moves a network token to `status` (`PATCH /networkTokens/{id}`, answered 202 with no content). Adyen
    /// refuses changes to a closed token; that refusal comes back as the mapped provider error.
    /// ``changeWalletToken(_:context:)`` is the normalised path (its illegal transitions are `invalidCardState`).
    public func updateNetworkToken(id: String, status: AdyenNetworkTokenStatus, context: OperationContext) async throws
    {
        try validate(tokenID: id)
        let body = try calls.encode(AdyenWireUpdateNetworkTokenRequest(status: status.rawValue))
        // PATCH to a fixed status is idempotent by nature: repeating it leaves the same state. A retried close
        // whose first attempt was applied is answered with Adyen's closed-is-final refusal, so a refused close
        // that took more than one attempt is settled by reading the token.
        let response = try await http.send(
            ProviderRequest(
                .patch, AdyenAPI.networkToken(id), headers: calls.headers(json: true), body: body, repeatability: .safe,
                operation: "update network token"),
            context: context
        )
        guard !response.isSuccess else { return }
        let error = self.error(for: response, family: .networkTokens)
        if status == .closed, response.attempts > 1, (400..<500).contains(response.status),
            let token = try? await networkToken(id: id, context: context),
            token.providerStatus == AdyenNetworkTokenStatus.closed.rawValue
        {
            return
        }
        throw error
    }

    /// Moves a token already known to the caller. A token known to be closed (``WalletTokenStatus/deleted``) is
    /// refused here with `invalidCardState`, without a request: closed is final at Adyen.
    public func updateNetworkToken(
        _ token: WalletToken, status: AdyenNetworkTokenStatus, context: OperationContext
    ) async throws {
        if token.status == .deleted || token.providerStatus == "closed" {
            throw CardGatewayError(
                .invalidCardState,
                "network token \(SafeText.scrub(token.id, maxLength: 64)) is closed; a closed token cannot be changed",
                provider: http.instance, providerKind: .adyen
            )
        }
        try await updateNetworkToken(id: token.id, status: status, context: context)
    }

    // MARK: Wallet provisioning

    /// Eligibility from the payment instrument (only `active` ones are eligible; otherwise the reason names the
    /// status and `statusReason`) and the card's existing network tokens. The flow is the issuer SDK relay.
    public func offer(for card: CardRef, wallet: Wallet, context: OperationContext) async throws -> ProvisioningOffer {
        try validate(cardID: card.id)
        let instrument = try await paymentInstrument(card.id, context: context)
        let mapped = try mapCard(instrument, ref: card)
        guard let flow = descriptor.provisioningFlows[wallet] else {
            return ProvisioningOffer(
                card: mapped.ref, wallet: wallet, eligible: false, ineligibleReason: .walletNotSupported(wallet),
                flow: nil,
                cardholderName: mapped.cardholderName, lastFour: mapped.lastFour, network: mapped.scheme,
                expiry: mapped.expiry
            )
        }
        // Listing tokens needs a role of its own. A credential made only for provisioning lacks it; the offer is
        // still right without the list, so that refusal leaves existingTokens empty instead of failing.
        let tokens: [WalletToken]
        do {
            tokens = try await networkTokens(for: card, context: context)
        } catch let error as CardGatewayError where error.code == .permissionDenied {
            context.logger.notice(
                "adyen offer without existing network tokens: the credential may not list them",
                metadata: [
                    "provider": .string(http.instance), "error.code": .string(error.code.rawValue),
                ])
            tokens = []
        }
        let reason = AdyenMapping.ineligibility(mapped)
        return ProvisioningOffer(
            card: mapped.ref, wallet: wallet, eligible: reason == nil, ineligibleReason: reason, flow: flow,
            cardholderName: mapped.cardholderName, lastFour: mapped.lastFour, network: mapped.scheme,
            expiry: mapped.expiry,
            existingTokens: tokens
        )
    }

    /// One relay round trip: `.issuerSDK(output: nil)` fetches the first `sdkInput`; `.issuerSDK(output: bytes)`
    /// posts the SDK's `sdkOutput` and returns the next `sdkInput`. Any other input is `unsupported`.
    public func provision(
        _ request: ProvisioningRequest, context: OperationContext
    ) async throws -> ProvisioningResponse {
        guard descriptor.provisioningFlows[request.wallet] != nil else {
            throw CardGatewayError(
                .unsupported, "Adyen cannot provision cards to \(request.wallet)", provider: http.instance,
                providerKind: .adyen)
        }
        guard request.input.kind == .issuerSDK else {
            throw CardGatewayError(
                .unsupported, "Adyen provisions by the issuer SDK relay; \(request.input.flow) input is not supported",
                provider: http.instance, providerKind: .adyen
            )
        }
        let output = request.input.issuerSDKOutput
        var problems = ValidationProblems()
        ProviderIDs.check(
            request.card.id, field: "card.id", what: "an Adyen payment instrument id", maxLength: AdyenAPI.idMaxLength,
            into: &problems)
        if let output { problems.require(!output.isEmpty, "input.output", "the issuer SDK output must not be empty") }
        try problems.throwIfAny()

        let path = AdyenAPI.networkTokenActivationData(request.card.id)
        let response: ProviderResponse
        if let output {
            let body = try calls.encode(
                AdyenWireActivationDataRequest(sdkOutput: ByteEncoding.base64(output.revealedBytes)))
            // One key per round trip: the scope carries a digest of this sdkOutput, so a caller reusing one
            // operation key for the whole relay still gets a distinct key for each POST (and the same key on retries).
            let outputDigest = ByteEncoding.hex(MessageAuthentication.sha256(output.revealedBytes))
            let digest = String(outputDigest.prefix(24))
            var postHeaders = calls.headers(json: true)
            if context.idempotencyKey?.isEmpty ?? true {
                // Without an operation key the key is still stable: the same sdkOutput for the same card gets
                // the same key, so a caller repeating the whole call after a lost answer is de-duplicated by Adyen.
                postHeaders[AdyenAPI.idempotencyKeyHeader] = Self.activationDataKey(
                    paymentInstrument: request.card.id, outputDigest: outputDigest)
            }
            response = try await send(
                ProviderRequest(
                    .post, path, headers: postHeaders, body: body,
                    repeatability: .idempotent(header: AdyenAPI.idempotencyKeyHeader, scope: "POST \(path) \(digest)"),
                    operation: "post network token activation data"
                ),
                family: .activationData, context: context
            )
        } else {
            response = try await send(
                ProviderRequest(.get, path, headers: calls.headers(), operation: "get network token activation data"),
                family: .activationData, context: context
            )
        }
        let decoded = try calls.decode(AdyenWireActivationDataResponse.self, from: response, what: "activation data")
        guard let text = decoded.sdkInput, !text.isEmpty else {
            throw calls.invalidResponse("Adyen's activation data has no sdkInput", response)
        }
        guard let bytes = ByteEncoding.decodeBase64(text) else {
            throw calls.invalidResponse("Adyen's sdkInput is not standard Base64", response)
        }
        return .issuerSDKInput(SensitiveData(bytes))
    }

    /// The idempotency key of an activation-data POST made without an operation key: 64 hex characters
    /// (Adyen's limit) of SHA-256 over the card and the sdkOutput's digest.
    static func activationDataKey(paymentInstrument: String, outputDigest: String) -> String {
        ByteEncoding.hex(MessageAuthentication.sha256(Data("adyen-nta|\(paymentInstrument)|\(outputDigest)".utf8)))
    }

    /// Adyen needs nothing once the wallet reports success (network token webhooks follow on their own).
    public func confirm(_ confirmation: ProvisioningConfirmation, context: OperationContext) async throws {}

    // MARK: Requests

    func mapCard(_ instrument: AdyenWirePaymentInstrument, ref: CardRef) throws -> Card {
        do {
            return try AdyenMapping.card(instrument, ref: ref)
        } catch let error as CardGatewayError {
            throw error.attributed(to: http.instance, kind: .adyen)
        }
    }

    func paymentInstrument(_ id: String, context: OperationContext) async throws -> AdyenWirePaymentInstrument {
        let response = try await send(
            ProviderRequest(
                .get, AdyenAPI.paymentInstrument(id), headers: calls.headers(), operation: "get payment instrument"),
            family: .paymentInstrument, context: context
        )
        return try calls.decode(AdyenWirePaymentInstrument.self, from: response, what: "payment instrument")
    }

    /// Sends and maps any non-success status to the error table of the endpoint's family.
    func send(
        _ request: ProviderRequest, family: AdyenEndpointFamily, context: OperationContext
    ) async throws -> ProviderResponse {
        try await calls.send(request, context: context) { response, _ in error(for: response, family: family) }
    }

    /// ``AdyenErrors``' error for a non-success response at an endpoint of `family`, with the API key and `secrets`
    /// redacted should Adyen ever echo one.
    func error(
        for response: ProviderResponse, family: AdyenEndpointFamily, redacting secrets: [String] = []
    ) -> CardGatewayError {
        AdyenErrors.error(
            for: response, family: family, instance: http.instance, kind: .adyen,
            redacting: [apiKey.revealedValue] + secrets)
    }

    // MARK: Validation

    func validate(cardID: String) throws {
        var problems = ValidationProblems()
        ProviderIDs.check(
            cardID, field: "card.id", what: "an Adyen payment instrument id", maxLength: AdyenAPI.idMaxLength,
            into: &problems)
        try problems.throwIfAny()
    }

    func validate(tokenID: String) throws {
        var problems = ValidationProblems()
        ProviderIDs.check(
            tokenID, field: "networkToken.id", what: "an Adyen network token id", maxLength: AdyenAPI.idMaxLength,
            into: &problems)
        try problems.throwIfAny()
    }
}
