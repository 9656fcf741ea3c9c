@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Logging
import _CryptoExtras

/// The Bridge adapter: card account look-ups, Apple Pay and Google Pay push provisioning by encrypted
/// payload, card account freezes, and webhook verification.
///
/// Bridge addresses card accounts under their customer, so every ``CardRef`` must carry `customer`.
/// Bridge exposes no wallet-token resource: offers list no existing tokens and token management (list,
/// suspend, delete) is unsupported. Nor does it cancel card accounts, activate them with printed data or take
/// a PIN (it hands out a PIN-update URL for the cardholder). The normalised lifecycle (create, lock and unlock by
/// freeze) is in BridgeLifecycle.swift, with ``listCards(_:context:)``: Bridge lists a customer's accounts
/// without paging, which the contract suite's listing scenario cannot accept yet, so `cardListing` is not
/// declared (see the README).
public struct BridgeProvider: CardListing, CardIssuance, CardStatusControl, WalletProvisioning, WebhookVerifying,
    CustomStringConvertible
{
    /// Card look-up, issuance and locking (freezes), wallet provisioning (Apple Pay and Google Pay, encrypted
    /// payload), card details by client nonce and PIN change by secure frame (BridgeCardReveal.swift), and webhooks.
    public static let standardDescriptor = ProviderDescriptor(
        kind: .bridge,
        capabilities: [
            .cardLookup, .cardListing, .cardIssuance, .cardLocking, .walletProvisioning, .cardDetailsReveal, .pinChange,
            .webhooks,
        ],
        provisioningFlows: [.applePay: .encryptedPayload, .googlePay: .encryptedPayload],
        revealFlows: [.cardDetails: .clientNonce, .pinChange: .secureLink]
    )

    public let descriptor: ProviderDescriptor
    public let certificateEncoding: BridgeCertificateEncoding
    /// The chain new card accounts are funded on; nil refuses card issuance as not configured.
    public let cardChain: String?
    /// The instance's client with the API key, and the plumbing of every call (``BridgeErrors`` for its errors).
    let calls: ProviderCalls
    var http: ProviderHTTPClient { calls.http }
    private let webhookKey: _RSA.Signing.PublicKey?

    /// Builds the adapter from configuration (what ``ProviderFactory/bridge`` does).
    public init(setup: ProviderSetup) throws {
        try self.init(setup: setup, options: setup.options(BridgeOptions.self))
    }

    /// Builds the adapter from configuration with its options already decoded.
    public init(setup: ProviderSetup, options: BridgeOptions) throws {
        try self.init(
            http: setup.http, apiKey: try setup.credential("apiKey"),
            webhookPublicKey: setup.optionalCredential("webhookPublicKey"),
            certificateEncoding: options.certificateEncoding,
            cardChain: options.cardChain
        )
    }

    /// Builds the adapter directly.
    /// - Parameters:
    ///   - http: the client for the instance (its base URL includes `/v0`).
    ///   - apiKey: the Bridge API key.
    ///   - webhookPublicKey: the webhook endpoint's RSA public key in PEM, or nil when webhooks are not used.
    ///   - certificateEncoding: how Apple's bytes go on the wire.
    ///   - cardChain: the chain new card accounts are funded on (one of Bridge's `chain` values).
    @_spi(AdapterSupport) public init(
        http: ProviderHTTPClient, apiKey: Secret, webhookPublicKey: Secret? = nil,
        certificateEncoding: BridgeCertificateEncoding = .base64, cardChain: String? = nil
    ) throws {
        if let cardChain, !BridgeAPI.cardAccountChains.contains(cardChain) {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).options.cardChain must be one of \(BridgeAPI.cardAccountChains.sorted().joined(separator: ", "))",
                provider: http.instance, providerKind: .bridge
            )
        }
        self.cardChain = cardChain
        guard !apiKey.isEmpty else {
            throw CardGatewayError(
                .invalidConfiguration, "providers.\(http.instance).credentials.apiKey is empty",
                provider: http.instance, providerKind: .bridge)
        }
        var client = http
        client.idempotencyKeyMaxLength = BridgeAPI.idempotencyKeyMaxLength
        // A conflict or an expired key is answered the same way however often the same key is repeated.
        client.retryAdvice = { response in [409, 422].contains(response.status) ? false : nil }
        self.calls = ProviderCalls(
            client.authenticated(by: HeaderAuthentication.apiKey(BridgeAPI.apiKeyHeader, apiKey)), provider: "Bridge",
            kind: .bridge, requestID: BridgeErrors.requestID,
            errors: { [instance = http.instance] response, _ in BridgeErrors.error(for: response, instance: instance) })
        self.certificateEncoding = certificateEncoding
        self.descriptor = Self.standardDescriptor
        if let pem = webhookPublicKey, !pem.isEmpty {
            do {
                self.webhookKey = try _RSA.Signing.PublicKey(pemRepresentation: pem.revealedValue)
            } catch {
                throw CardGatewayError(
                    .invalidConfiguration,
                    "providers.\(http.instance).credentials.webhookPublicKey is not an RSA public key in PEM (2048 bits or more)",
                    provider: http.instance, providerKind: .bridge
                )
            }
        } else {
            self.webhookKey = nil
        }
    }

    /// Safe to log: names the instance and the encoding, never the key.
    public var description: String {
        "BridgeProvider(instance: \(http.instance), certificateEncoding: \(certificateEncoding.rawValue), webhooks: \(webhookKey == nil ? "not configured" : "configured"))"
    }

    // MARK: Card look-up

    /// `GET /customers/{customerID}/card_accounts/{cardAccountID}`.
    public func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        let (customer, id) = try validated(ref)
        let response = try await calls.send(
            ProviderRequest(
                .get, BridgeAPI.cardAccount(customer: customer, card: id), headers: calls.headers(),
                operation: "get card account"),
            context: context
        )
        let account: BridgeCardAccount = try calls.decode(from: response, what: "card account")
        return try BridgeMapping.card(
            account, requested: ref, httpStatus: response.status, requestID: BridgeErrors.requestID(response))
    }

    // MARK: Wallet provisioning

    /// Eligibility from the card account: only `active` accounts can be added. Bridge lists no wallet
    /// tokens, so `existingTokens` is always empty.
    public func offer(for card: CardRef, wallet: Wallet, context: OperationContext) async throws -> ProvisioningOffer {
        let account = try await self.card(card, context: context)
        let flow = descriptor.provisioningFlows[wallet]
        let reason: IneligibilityReason?
        if flow == nil {
            reason = .walletNotSupported(wallet)
        } else if account.providerStatus != "active" {
            // A frozen account says why (the freeze reasons; other statuses, Bridge's status_reason).
            let why = account.statusReason.flatMap { $0.isEmpty ? nil : " (\($0))" } ?? ""
            reason = IneligibilityReason(
                code: "cardNotActive",
                message: "the card is \(account.providerStatus)\(why), only active cards can be added to a wallet")
        } else {
            reason = nil
        }
        return ProvisioningOffer(
            card: account.ref, wallet: wallet, eligible: reason == nil, ineligibleReason: reason, flow: flow,
            cardholderName: account.cardholderName, lastFour: account.lastFour, network: account.scheme,
            expiry: account.expiry, existingTokens: []
        )
    }

    /// `POST …/create_mobile_wallet_provisioning_request`. Apple: exactly two certificates (leaf, then
    /// subordinate, as PassKit orders them), the nonce and its signature, encoded as ``certificateEncoding``
    /// says. Google: the wallet account id and device id. Each call is one attempt with its own
    /// `Idempotency-Key` (fresh unless the context carries an operation key), reused only by its retries.
    public func provision(
        _ request: ProvisioningRequest, context: OperationContext
    ) async throws -> ProvisioningResponse {
        var problems = ValidationProblems()
        let (customer, id) = collect(request.card, into: &problems)
        let body: BridgeProvisioningInput?
        if request.wallet == .applePay, let input = request.input.applePay {
            problems.require(
                input.certificates.count == 2, "input.certificates",
                "Bridge needs exactly two certificates (leaf, then subordinate), not \(input.certificates.count)")
            for (index, certificate) in input.certificates.enumerated() where certificate.isEmpty {
                problems.add("input.certificates[\(index)]", "is empty")
            }
            problems.require(!input.nonce.isEmpty, "input.nonce", "is empty")
            problems.require(!input.nonceSignature.isEmpty, "input.nonceSignature", "is empty")
            if input.certificates.count == 2 {
                body = BridgeProvisioningInput(
                    walletProvider: "apple_pay",
                    applePay: .init(
                        encoding: certificateEncoding.rawValue,
                        leafCert: BridgeMapping.encode(input.certificates[0].revealedBytes, as: certificateEncoding),
                        subordinateCert: BridgeMapping.encode(
                            input.certificates[1].revealedBytes, as: certificateEncoding),
                        nonce: BridgeMapping.encode(input.nonce.revealedBytes, as: certificateEncoding),
                        nonceSignature: BridgeMapping.encode(
                            input.nonceSignature.revealedBytes, as: certificateEncoding)
                    )
                )
            } else {
                body = nil
            }
        } else if request.wallet == .googlePay, let input = request.input.googlePay {
            problems.require(!input.clientWalletAccountID.isEmpty, "input.clientWalletAccountID", "is empty")
            problems.require(!input.clientDeviceID.isEmpty, "input.clientDeviceID", "is empty")
            body = BridgeProvisioningInput(
                walletProvider: "google_pay",
                googlePay: .init(
                    clientWalletAccountID: input.clientWalletAccountID, clientDeviceID: input.clientDeviceID)
            )
        } else if request.wallet == .samsungPay {
            throw CardGatewayError.unsupported("Bridge does not provision cards to samsungPay")
        } else {
            problems.add(
                "input",
                "must be \(request.wallet == .applePay ? "applePay" : "googlePay") input for the \(request.wallet) wallet"
            )
            body = nil
        }
        try problems.throwIfAny()
        guard let body, let customer, let id else {
            throw CardGatewayError.invalidRequest("the request is incomplete", field: "input")
        }

        // The scope carries a digest of this attempt's body: an Apple nonce is single-use, so a caller reusing one
        // operation key for a new attempt (new nonce, other device) must get a new key, not Bridge's replay of a
        // payload encrypted for the old nonce. Retries of one attempt send the same bytes and share the key.
        let encoded = try calls.encode(body)
        let attemptDigest = ByteEncoding.hex(MessageAuthentication.sha256(encoded).prefix(12))
        let response = try await calls.send(
            ProviderRequest(
                .post, BridgeAPI.provisioningRequest(customer: customer, card: id), headers: calls.headers(json: true),
                body: encoded,
                repeatability: .idempotent(
                    header: BridgeAPI.idempotencyKeyHeader,
                    scope: "create_mobile_wallet_provisioning_request:\(customer)/\(id)|\(attemptDigest)"),
                operation: "create mobile wallet provisioning request"
            ),
            context: context
        )
        let decoded: BridgeProvisioningResponse = try calls.decode(from: response, what: "provisioning response")
        return try BridgeMapping.provisioningResponse(
            decoded, wallet: request.wallet, httpStatus: response.status,
            requestID: BridgeErrors.requestID(response)
        )
    }

    /// Bridge needs nothing once the wallet reports success.
    public func confirm(_ confirmation: ProvisioningConfirmation, context: OperationContext) async throws {
        var problems = ValidationProblems()
        _ = collect(confirmation.card, into: &problems)
        try problems.throwIfAny()
    }

    // MARK: Freezes (card status updates)

    /// Places a freeze on the card account (`POST …/freeze` with `initiator` and `reason`). The account turns
    /// `frozen` (``CardStatus/locked`` when only the customer froze it, ``CardStatus/suspended`` otherwise).
    /// A new freeze by the same initiator replaces its earlier one.
    public func freeze(
        card: CardRef, reason: BridgeFreezeReason, initiator: BridgeFreezeInitiator = .developer,
        reasonDetail: String? = nil, endingAt: Date? = nil, context: OperationContext
    ) async throws -> BridgeFreezeResult {
        let (customer, id) = try validated(card)
        let body = BridgeFreezeInput(
            initiator: initiator.rawValue, reason: reason.rawValue, reasonDetail: reasonDetail,
            endingAt: endingAt.map(BridgeDates.format)
        )
        let response = try await calls.send(
            ProviderRequest(
                .post, BridgeAPI.freeze(customer: customer, card: id), headers: calls.headers(json: true),
                body: try calls.encode(body),
                // The parameters are in the scope: a caller reusing one operation key for a different freeze
                // gets a different key, not Bridge's replay of the earlier one.
                repeatability: .idempotent(
                    header: BridgeAPI.idempotencyKeyHeader,
                    scope:
                        "freeze:\(customer)/\(id)|\(initiator.rawValue)|\(reason.rawValue)|\(reasonDetail ?? "")|\(body.endingAt ?? "")"
                ),
                operation: "freeze card account"
            ),
            context: context
        )
        let freeze: BridgeCardFreeze = try calls.decode(from: response, what: "freeze")
        return BridgeMapping.freezeResult(freeze, card: CardRef(id: id, customer: customer))
    }

    /// Removes the freeze `initiator` placed (`POST …/unfreeze`). The account stays frozen while another
    /// initiator's freeze remains.
    public func unfreeze(
        card: CardRef, initiator: BridgeFreezeInitiator = .developer, context: OperationContext
    ) async throws -> BridgeFreezeResult {
        let (customer, id) = try validated(card)
        let response = try await calls.send(
            ProviderRequest(
                .post, BridgeAPI.unfreeze(customer: customer, card: id), headers: calls.headers(json: true),
                body: try calls.encode(BridgeUnfreezeInput(initiator: initiator.rawValue)),
                repeatability: .idempotent(
                    header: BridgeAPI.idempotencyKeyHeader, scope: "unfreeze:\(customer)/\(id)|\(initiator.rawValue)"),
                operation: "unfreeze card account"
            ),
            context: context
        )
        let freeze: BridgeCardFreeze = try calls.decode(from: response, what: "unfreeze")
        return BridgeMapping.freezeResult(freeze, card: CardRef(id: id, customer: customer))
    }

    // MARK: Webhooks

    /// Verifies `X-Webhook-Signature` (RSA PKCS#1 v1.5 with SHA-256 over `"<t>.<raw body>"`, `t` in
    /// milliseconds) with the endpoint's public key, refuses events signed more than ten minutes before `now`
    /// (or more than a minute after it), then normalises `card_account` events into
    /// ``GatewayEvent/Kind/cardStatusChanged(_:)``. Other categories, including ones Bridge documents but its spec
    /// does not list (`card_dispute`) and ones it adds later, give no events and are logged at debug level.
    public func verify(_ delivery: WebhookDelivery, now: Date) throws -> [GatewayEvent] {
        guard let webhookKey else {
            throw CardGatewayError(
                .invalidConfiguration,
                "the webhookPublicKey credential is not configured for \(http.instance), so Bridge webhooks cannot be verified",
                provider: http.instance, providerKind: .bridge
            )
        }
        return try BridgeWebhooks.verify(delivery, key: webhookKey, now: now, logger: http.logger)
    }

    // MARK: Validation

    /// The customer and card ids, checked (both 1–42 characters, schema `Id`); problems go into `problems`.
    func collect(_ ref: CardRef, into problems: inout ValidationProblems) -> (String?, String?) {
        guard let customer = ref.customer, !customer.isEmpty else {
            problems.add("card.customer", "is required: Bridge addresses card accounts under their customer")
            ProviderIDs.check(
                ref.id, field: "card.id", what: "a Bridge card account id", maxLength: BridgeAPI.idMaxLength,
                into: &problems)
            return (nil, nil)
        }
        let before = problems.errors.count
        ProviderIDs.check(
            customer, field: "card.customer", what: "a Bridge customer id", maxLength: BridgeAPI.idMaxLength,
            into: &problems)
        ProviderIDs.check(
            ref.id, field: "card.id", what: "a Bridge card account id", maxLength: BridgeAPI.idMaxLength,
            into: &problems)
        return problems.errors.count == before ? (customer, ref.id) : (nil, nil)
    }

    func validated(_ ref: CardRef) throws -> (customer: String, id: String) {
        var problems = ValidationProblems()
        let (customer, id) = collect(ref, into: &problems)
        try problems.throwIfAny()
        guard let customer, let id else { throw CardGatewayError.invalidRequest("is required", field: "card.customer") }
        return (customer, id)
    }
}
