@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Logging

/// The Marqeta adapter: card look-up, listing and issuance; card transitions (lock, unlock, cancel); Apple Pay,
/// Google Pay and Samsung Pay push provisioning by encrypted payload; digital wallet tokens and their transitions
/// (list, suspend, resume, terminate); webhook verification (HTTP Basic and `X-Marqeta-Signature`); card details for
/// the cardholder by a Marqeta.js client access token (``revealSession(_:context:)``).
///
/// Marqeta addresses cards by their token alone; ``CardRef/customer`` is the user token, needed only to list cards.
/// Every request authenticates with HTTP Basic: the application token as the username, the access token as the
/// password. Card creation and card and digital wallet token transitions carry Marqeta's idempotency `token` in their
/// body (``MarqetaAPI/idempotencyToken(_:scope:)``) and are retried like any idempotent write; provisioning requests
/// take no token and are sent once.
public struct MarqetaProvider: CardListing, CardIssuance, CardStatusControl, WalletProvisioning, WalletTokenListing,
    WalletTokenControl,
    WebhookVerifying, CustomStringConvertible
{
    /// What every Marqeta instance can do.
    public static let descriptor = ProviderDescriptor(
        kind: .marqeta,
        capabilities: [
            .cardLookup, .cardListing, .cardIssuance, .cardLocking, .cardCancellation, .walletTokenListing,
            .walletTokenControl,
            .walletProvisioning, .webhooks, .cardDetailsReveal, .authorizations,
        ],
        provisioningFlows: [
            .applePay: .encryptedPayload, .googlePay: .encryptedPayload, .samsungPay: .encryptedPayload,
        ],
        revealFlows: [.cardDetails: .clientAccessToken],
        // Gateway JIT Funding: "3 seconds" unless the funding source's `timeout_millis` (1000–7000) says otherwise.
        authorizationDeadline: .seconds(3)
    )

    /// The same as ``descriptor`` (static).
    public var descriptor: ProviderDescriptor { Self.descriptor }

    public let options: MarqetaOptions
    /// The instance's client with HTTP Basic, and the plumbing of every call (``MarqetaErrors`` for its errors).
    let calls: ProviderCalls
    var http: ProviderHTTPClient { calls.http }
    let webhook: MarqetaWebhookVerifier
    /// The program gateway funding source's Basic credentials, for JIT Funding requests (MarqetaAuthorizations.swift).
    let authorizationCredentials: MarqetaAuthorizationCredentials?

    /// Builds the adapter from configuration.
    public init(setup: ProviderSetup) throws {
        try self.init(setup: setup, options: setup.options(MarqetaOptions.self))
    }

    /// Builds the adapter from configuration with its options already decoded.
    public init(setup: ProviderSetup, options: MarqetaOptions) throws {
        try self.init(
            http: setup.http, applicationToken: setup.credential("applicationToken"),
            accessToken: setup.credential("accessToken"), options: options,
            webhookUsername: setup.optionalCredential("webhookUsername"),
            webhookPassword: setup.optionalCredential("webhookPassword"),
            webhookSecret: setup.optionalCredential("webhookSecret"),
            authorizationUsername: setup.optionalCredential("authorizationUsername"),
            authorizationPassword: setup.optionalCredential("authorizationPassword")
        )
    }

    /// Builds the adapter directly.
    /// - Parameters:
    ///   - http: the client for the instance (its base URL includes `/v3`).
    ///   - applicationToken: the HTTP Basic username.
    ///   - accessToken: the HTTP Basic password (a user or admin access token).
    ///   - options: the provisioning app version and device type.
    ///   - webhookUsername, webhookPassword: the Basic credentials configured on the webhook.
    ///   - webhookSecret: the webhook's signing secret.
    ///   - authorizationUsername, authorizationPassword: the program gateway funding source's `basic_auth_username`
    ///     and `basic_auth_password`, which Marqeta sends with each JIT Funding request.
    @_spi(AdapterSupport) public init(
        http: ProviderHTTPClient, applicationToken: Secret, accessToken: Secret, options: MarqetaOptions,
        webhookUsername: Secret? = nil, webhookPassword: Secret? = nil, webhookSecret: Secret? = nil,
        authorizationUsername: Secret? = nil, authorizationPassword: Secret? = nil
    ) throws {
        for (name, value) in [("applicationToken", applicationToken), ("accessToken", accessToken)]
        where value.revealedValue.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw CardGatewayError(
                .invalidConfiguration, "providers.\(http.instance).credentials.\(name) is empty",
                provider: http.instance, providerKind: .marqeta)
        }
        guard options.provisioningAppVersion.map({ !$0.isEmpty && $0.count <= MarqetaAPI.appVersionMaxLength }) ?? true,
            MarqetaAPI.deviceTypes.contains(options.deviceType)
        else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).options: provisioningAppVersion must be 1 to 50 characters and deviceType one of \(MarqetaAPI.deviceTypes.joined(separator: ", "))",
                provider: http.instance, providerKind: .marqeta
            )
        }
        if (webhookUsername == nil) != (webhookPassword == nil) {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).credentials: webhookUsername and webhookPassword go together",
                provider: http.instance, providerKind: .marqeta
            )
        }
        switch (authorizationUsername, authorizationPassword) {
        case (nil, nil):
            authorizationCredentials = nil
        case (let username?, let password?)
        where !username.revealedValue.isEmpty && !password.revealedValue.isEmpty:
            authorizationCredentials = MarqetaAuthorizationCredentials(username: username, password: password)
        default:
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).credentials: authorizationUsername and authorizationPassword go together, neither empty",
                provider: http.instance, providerKind: .marqeta
            )
        }
        self.options = options
        var client = http.authenticated(
            by: HeaderAuthentication.basic(username: applicationToken, password: accessToken))
        // Marqeta's 409 is final: the idempotency token is already bound to another body (core-api/idempotency).
        client.retryAdvice = { response in response.status == 409 ? false : nil }
        self.calls = ProviderCalls(
            client, provider: "Marqeta", kind: .marqeta, acceptsJSON: true, requestID: MarqetaErrors.requestID,
            errors: { [instance = http.instance] response, request in
                // A write Marqeta cannot de-duplicate is never called retryable once it may have been acted on.
                MarqetaErrors.error(for: response, instance: instance, redacting: [accessToken.revealedValue])
                    .answering(request)
            })
        self.webhook = MarqetaWebhookVerifier(
            username: webhookUsername, password: webhookPassword,
            secret: webhookSecret.flatMap { $0.isEmpty ? nil : $0 }, instance: http.instance,
            logger: http.logger
        )
    }

    /// Safe to log: the instance and options, never a token or secret.
    public var description: String {
        "MarqetaProvider(instance: \(http.instance), deviceType: \(options.deviceType), webhooks: \(webhook.isConfigured ? "configured" : "not configured"))"
    }

    // MARK: Card lookup

    /// `GET /cards/{token}`.
    public func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        try validate(token: ref.id, field: "card.id", what: "a Marqeta card token")
        let wire = try await fetchCard(ref.id, context: context)
        return try map(wire, ref: ref)
    }

    // MARK: Wallet provisioning

    /// Eligibility from the card (only `ACTIVE` cards can be added; the reason names any other state) and the card's
    /// existing digital wallet tokens. Every wallet is the encrypted-payload flow.
    public func offer(for card: CardRef, wallet: Wallet, context: OperationContext) async throws -> ProvisioningOffer {
        let mapped = try await self.card(card, context: context)
        guard let flow = descriptor.provisioningFlows[wallet] else {
            return ProvisioningOffer(
                card: mapped.ref, wallet: wallet, eligible: false, ineligibleReason: .walletNotSupported(wallet),
                flow: nil,
                cardholderName: nil, lastFour: mapped.lastFour, network: mapped.scheme, expiry: mapped.expiry
            )
        }
        let reason: IneligibilityReason? =
            mapped.providerStatus == MarqetaAPI.CardState.active ? nil : .cardNotActive(mapped.providerStatus)
        // Reading tokens needs the same credentials; a refusal leaves the list empty rather than failing the offer.
        let tokens: [WalletToken]
        do {
            tokens = try await walletTokens(of: mapped.ref, context: context)
        } catch let error as CardGatewayError where error.code == .permissionDenied {
            context.logger.notice(
                "marqeta offer without existing wallet tokens: the credentials may not list them",
                metadata: [
                    "provider": .string(http.instance), "error.code": .string(error.code.rawValue),
                ])
            tokens = []
        }
        return ProvisioningOffer(
            card: mapped.ref, wallet: wallet, eligible: reason == nil, ineligibleReason: reason, flow: flow,
            cardholderName: nil,
            lastFour: mapped.lastFour, network: mapped.scheme, expiry: mapped.expiry, existingTokens: tokens
        )
    }

    /// One provisioning request. Apple Pay: `POST /digitalwalletprovisionrequests/applepay` with the certificates
    /// (leaf first, as PassKit gives them), nonce and signature in standard Base64; answers the Apple payload. Google
    /// Pay: `POST …/androidpay` with `wallet_account_id` (1–50) and `device_id` (1–24); answers
    /// `push_tokenize_request_data`, returned as a ``GooglePayPayload`` whose `opaquePaymentCard` is the UTF-8 of
    /// Marqeta's string. Samsung Pay: `POST …/samsungpay` with `wallet_user_id` (1–50) and `device_id` (1–24); answers
    /// Samsung's `push_tokenize_request_data`, returned as a ``SamsungPayPayload`` whose `extraProvisionPayload` is the
    /// UTF-8 of Marqeta's `extra_provision_payload`. Both are handed to the wallet as they are. `device_type` and
    /// `provisioning_app_version` are the request's, or the instance's options where the request names none. Sent
    /// once: Marqeta's provision requests take no idempotency `token`.
    public func provision(
        _ request: ProvisioningRequest, context: OperationContext
    ) async throws -> ProvisioningResponse {
        guard descriptor.provisioningFlows[request.wallet] != nil else {
            throw CardGatewayError(
                .unsupported, "Marqeta cannot provision cards to \(request.wallet)", provider: http.instance,
                providerKind: .marqeta)
        }
        var problems = ValidationProblems()
        ProviderIDs.check(
            request.card.id, field: "card.id", what: "a Marqeta card token", maxLength: MarqetaAPI.tokenMaxLength,
            into: &problems)
        var deviceType = options.deviceType
        if let kind = request.deviceType {
            if let marqeta = MarqetaAPI.deviceType(kind) {
                deviceType = marqeta
            } else {
                problems.add("deviceType", "Marqeta does not provision to a \(kind) device")
            }
        }
        let appVersion = request.appVersion ?? options.provisioningAppVersion ?? ""
        check(appVersion, field: "appVersion", maxLength: MarqetaAPI.appVersionMaxLength, into: &problems)
        let path: String
        let body: Data
        if request.wallet == .applePay, let input = request.input.applePay {
            problems.require(
                !input.certificates.isEmpty, "input.certificates",
                "Marqeta needs the leaf and sub-CA certificates Apple gave")
            for (index, certificate) in input.certificates.enumerated() where certificate.isEmpty {
                problems.add("input.certificates[\(index)]", "is empty")
            }
            problems.require(!input.nonce.isEmpty, "input.nonce", "is empty")
            problems.require(!input.nonceSignature.isEmpty, "input.nonceSignature", "is empty")
            try problems.throwIfAny()
            path = MarqetaAPI.applePayProvisioning
            body = try calls.encode(
                MarqetaWireApplePayRequest(
                    cardToken: request.card.id, deviceType: deviceType, provisioningAppVersion: appVersion,
                    certificates: input.certificates.map { ByteEncoding.base64($0.revealedBytes) },
                    nonce: ByteEncoding.base64(input.nonce.revealedBytes),
                    nonceSignature: ByteEncoding.base64(input.nonceSignature.revealedBytes)
                ))
        } else if request.wallet == .googlePay, let input = request.input.googlePay {
            check(
                input.clientDeviceID, field: "input.clientDeviceID", maxLength: MarqetaAPI.deviceIDMaxLength,
                into: &problems)
            check(
                input.clientWalletAccountID, field: "input.clientWalletAccountID",
                maxLength: MarqetaAPI.walletIDMaxLength, into: &problems)
            try problems.throwIfAny()
            path = MarqetaAPI.googlePayProvisioning
            body = try calls.encode(
                MarqetaWireGooglePayRequest(
                    cardToken: request.card.id, deviceType: deviceType, provisioningAppVersion: appVersion,
                    walletAccountID: input.clientWalletAccountID, deviceID: input.clientDeviceID
                ))
        } else if request.wallet == .samsungPay, let input = request.input.samsungPay {
            check(input.deviceID, field: "input.deviceID", maxLength: MarqetaAPI.deviceIDMaxLength, into: &problems)
            check(
                input.walletUserID, field: "input.walletUserID", maxLength: MarqetaAPI.walletIDMaxLength,
                into: &problems)
            try problems.throwIfAny()
            path = MarqetaAPI.samsungPayProvisioning
            body = try calls.encode(
                MarqetaWireSamsungPayRequest(
                    cardToken: request.card.id, deviceType: deviceType, provisioningAppVersion: appVersion,
                    walletUserID: input.walletUserID, deviceID: input.deviceID
                ))
        } else {
            throw CardGatewayError(
                .invalidRequest,
                "Marqeta provisions \(request.wallet) by its own encrypted-payload input; the request carries \(request.input)",
                provider: http.instance, providerKind: .marqeta
            )
        }
        let response = try await calls.send(
            ProviderRequest(
                .post, path, headers: calls.headers(json: true), body: body, repeatability: .never,
                operation: "provision \(request.wallet)"),
            context: context
        )
        switch request.wallet {
        case .applePay:
            let answer = try calls.decode(
                MarqetaWireApplePayResponse.self, from: response, what: "Apple Pay provisioning")
            func part(_ text: String?, _ name: String) throws -> SensitiveData {
                guard let text, !text.isEmpty else {
                    throw calls.invalidResponse("Marqeta's Apple Pay answer has no \(name)", response)
                }
                guard let bytes = ByteEncoding.decodeBase64(text), !bytes.isEmpty else {
                    throw calls.invalidResponse("Marqeta's \(name) is not Base64", response)
                }
                return SensitiveData(bytes)
            }
            return .applePay(
                ApplePayPayload(
                    activationData: try part(answer.activationData, "activation_data"),
                    encryptedPassData: try part(answer.encryptedPassData, "encrypted_pass_data"),
                    ephemeralPublicKey: try part(answer.ephemeralPublicKey, "ephemeral_public_key")
                ))
        case .samsungPay:
            let answer = try calls.decode(
                MarqetaWireSamsungPayResponse.self, from: response, what: "Samsung Pay provisioning")
            guard let data = answer.pushTokenizeRequestData, let payload = data.extraProvisionPayload, !payload.isEmpty
            else {
                throw calls.invalidResponse(
                    "Marqeta's Samsung Pay answer has no push_tokenize_request_data.extra_provision_payload", response)
            }
            return .samsungPay(
                SamsungPayPayload(
                    extraProvisionPayload: SensitiveData(Data(payload.utf8)),
                    network: data.network.map(MarqetaMapping.scheme),
                    cardType: data.cardType.map { SafeText.scrub($0, maxLength: 32) },
                    tokenProvider: data.tokenServiceProvider,
                    displayName: data.displayName.map { SafeText.scrub($0, maxLength: 64) }, lastFour: data.lastDigits
                ))
        default:
            let answer = try calls.decode(
                MarqetaWirePushProvisionResponse.self, from: response, what: "Google Pay provisioning")
            guard let data = answer.pushTokenizeRequestData, let opaque = data.opaquePaymentCard, !opaque.isEmpty else {
                throw calls.invalidResponse(
                    "Marqeta's Google Pay answer has no push_tokenize_request_data.opaque_payment_card", response)
            }
            return .googlePay(
                GooglePayPayload(
                    opaquePaymentCard: SensitiveData(Data(opaque.utf8)),
                    network: data.network.map(MarqetaMapping.scheme), tokenProvider: data.tokenServiceProvider,
                    displayName: data.displayName.map { SafeText.scrub($0, maxLength: 64) }, lastFour: data.lastDigits
                ))
        }
    }

    /// Marqeta needs nothing once the wallet reports success (the digital wallet token's transitions follow as
    /// webhooks).
    public func confirm(_ confirmation: ProvisioningConfirmation, context: OperationContext) async throws {}

    // MARK: Webhooks

    /// Verifies the delivery (HTTP Basic credentials and/or `X-Marqeta-Signature`, as configured; constant-time)
    /// and turns `cardtransitions` and `digitalwallettokentransitions` into events. Marqeta signs no timestamp, so
    /// staleness cannot be checked: de-duplicate by event token.
    public func verify(_ delivery: WebhookDelivery, now: Date) throws -> [GatewayEvent] {
        try webhook.verify(delivery)
    }

    // MARK: Plumbing

    func fetchCard(_ token: String, context: OperationContext) async throws -> MarqetaWireCard {
        let response = try await calls.send(
            ProviderRequest(.get, MarqetaAPI.card(token), headers: calls.headers(), operation: "get card"),
            context: context)
        return try calls.decode(MarqetaWireCard.self, from: response, what: "card")
    }

    func map(_ wire: MarqetaWireCard, ref: CardRef?) throws -> Card {
        do {
            return try MarqetaMapping.card(wire, requested: ref)
        } catch let error as CardGatewayError {
            throw error.attributed(to: http.instance, kind: .marqeta)
        }
    }

    func validate(token: String, field: String, what: String) throws {
        var problems = ValidationProblems()
        ProviderIDs.check(token, field: field, what: what, maxLength: MarqetaAPI.tokenMaxLength, into: &problems)
        try problems.throwIfAny()
    }

    private func check(_ value: String, field: String, maxLength: Int, into problems: inout ValidationProblems) {
        problems.require(!value.isEmpty && value.count <= maxLength, field, "must be 1 to \(maxLength) characters")
    }
}
