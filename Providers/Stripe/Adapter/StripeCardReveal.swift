@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

// Card details and PIN by Stripe Issuing Elements, PIN change by an encrypted PIN (CardDetailsAndPIN.md, README
// "Card details and PIN").
//
// Card details and PIN: Stripe.js makes a nonce for one card (`stripe.createEphemeralKeyNonce({issuingCard})`); the
// backend exchanges it for an ephemeral key (`POST /v1/ephemeral_keys` with `issuing_card` and `nonce`, pinned by a
// `Stripe-Version` of 2020-03-02 or later) and hands the key's secret back; Stripe.js then reads the card from Stripe
// with the secret and the nonce and shows the number, CVC, expiry or PIN in Stripe-hosted iframes
// (`issuingCardNumberDisplay`, `…CvcDisplay`, `…ExpiryDisplay`, `…PinDisplay`). The backend never sees them. The same
// key serves card details and the PIN: the front end chooses which elements it mounts.
//
// PIN change: the front end encrypts the new PIN under Stripe's public key (PIN management guide, "Encrypting PINs");
// the backend relays the ciphertext as `pin[encrypted_number]` of `POST /v1/issuing/cards/{id}`. Only Stripe can read
// it; Stripe's answer (the card) never carries the PIN.
//
// Not offered: reading the card with `expand[]=number`/`expand[]=cvc` (or `pin.number`) under the secret key, which
// would put the clear data in the backend; this adapter never asks for those expansions, and its card type has no
// field that could hold them.
extension StripeProvider: CardReveal {
    /// Asks Stripe for the card (`GET /v1/issuing/cards/{id}`) to refuse what Stripe cannot show or change
    /// (``revealableCard(_:purpose:context:)``). The offer names the `Stripe-Version` the session mints with when the
    /// front end names none.
    public func revealOffer(
        for card: CardRef, purpose: RevealPurpose, context: OperationContext
    ) async throws -> RevealOffer {
        let flow = try revealFlow(for: purpose)
        try Self.validate(cardID: card.id)
        let wire = try await revealableCard(card.id, purpose: purpose, context: context)
        return RevealOffer(
            card: CardRef(id: wire.id, customer: card.customer), purpose: purpose, flow: flow,
            apiVersion: flow == .clientNonce ? StripeAPI.issuingElementsAPIVersion : nil)
    }

    /// Card details and PIN: checks the card as the offer does (a client may skip the offer), then mints an ephemeral
    /// key for it bound to the front end's nonce: `POST /v1/ephemeral_keys` with `issuing_card` and `nonce`,
    /// `Stripe-Version` the request's ``RevealSessionRequest/apiVersion`` (the one the front end's Stripe.js uses, 2020-03-02
    /// or later) or ``StripeAPI/issuingElementsAPIVersion``. PIN change: checks the card the same way, then relays the
    /// front end's ciphertext as `pin[encrypted_number]`.
    ///
    /// Each key request is sent once under a fresh `Idempotency-Key` (the operation's key is not used) and never
    /// repeated once it may have reached Stripe: the nonce is single-use, so a repeat could only fail or replay a key.
    /// Such a failure has ``CardGatewayError/mayHaveReachedProvider`` set and is not retryable; the front end makes a
    /// new nonce. The nonce and the ciphertext never appear in an error or a log line, even where Stripe's message
    /// echoes them.
    public func revealSession(_ request: RevealSessionRequest, context: OperationContext) async throws -> RevealSession
    {
        let flow = try revealFlow(for: request.purpose)
        var problems = request.problems(in: flow)
        Self.check(cardID: request.card.id, field: "card.id", into: &problems)
        if let nonce = request.clientNonce, nonce.revealedValue.utf8.count > StripeAPI.nonceMaxLength {
            problems.add("clientNonce", "must be at most \(StripeAPI.nonceMaxLength) characters")
        }
        if let pin = request.encryptedPINBlock, pin.revealedValue.utf8.count > StripeAPI.encryptedPINMaxLength {
            problems.add("encryptedPINBlock", "must be at most \(StripeAPI.encryptedPINMaxLength) characters")
        }
        if let version = request.apiVersion {
            if flow != .clientNonce {
                problems.add("apiVersion", "is taken for Issuing Elements keys only")
            } else if !StripeAPIVersion.isValid(version) {
                problems.add("apiVersion", "must be a Stripe API version such as 2020-03-02")
            } else if !StripeAPIVersion.isAtLeast(version, StripeAPI.issuingElementsAPIVersion) {
                problems.add(
                    "apiVersion",
                    "must be \(StripeAPI.issuingElementsAPIVersion) or later: Stripe mints Issuing Elements keys with no older version"
                )
            }
        }
        try problems.throwIfAny()
        let secrets = [request.clientNonce, request.encryptedPINBlock].compactMap { $0?.revealedValue }
        do {
            _ = try await revealableCard(request.card.id, purpose: request.purpose, context: context)
            if flow == .encryptedPIN {
                return try await changePIN(request, flow: flow, context: context)
            }
            return try await ephemeralKeySession(request, flow: flow, context: context)
        } catch var error as CardGatewayError {
            error.message = Self.redacting(secrets, in: error.message)
            error.fieldErrors = error.fieldErrors.map {
                CardGatewayError.FieldError(field: $0.field, message: Self.redacting(secrets, in: $0.message))
            }
            // A key request or PIN change that may have reached Stripe is not repeated: the nonce is single-use, and
            // a PIN change's outcome is to be read on the card first.
            if error.mayHaveReachedProvider { error.isRetryable = false }
            throw error
        }
    }

    /// The flow the descriptor declares for `purpose`, or ``CardGatewayError/Code/unsupported``.
    private func revealFlow(for purpose: RevealPurpose) throws -> RevealFlow {
        guard let flow = descriptor.revealFlows[purpose] else {
            throw CardGatewayError(
                .unsupported, "Stripe offers no \(purpose)", provider: http.instance, providerKind: .stripe)
        }
        return flow
    }

    /// The card, refused with ``CardGatewayError/Code/invalidCardState`` when Stripe cannot serve `purpose` for it: a
    /// canceled card (any purpose), a physical card's details (Stripe gives the number and CVC of virtual cards only).
    /// What the offer and the session step both check.
    private func revealableCard(
        _ id: String, purpose: RevealPurpose, context: OperationContext
    ) async throws -> StripeCardWire {
        let wire = try await fetchCard(id, context: context)
        if wire.status == "canceled" {
            throw CardGatewayError(
                .invalidCardState, "the card is canceled: Stripe shows or changes no details or PIN of a canceled card",
                provider: http.instance, providerKind: .stripe
            )
        }
        if purpose == .cardDetails, wire.type == "physical" {
            throw CardGatewayError(
                .invalidCardState, "Stripe gives the number and CVC of virtual cards only; this card is physical",
                provider: http.instance, providerKind: .stripe
            )
        }
        return wire
    }

    private func ephemeralKeySession(
        _ request: RevealSessionRequest, flow: RevealFlow, context: OperationContext
    ) async throws -> RevealSession {
        guard let nonce = request.clientNonce else {
            throw CardGatewayError.invalidRequest("is required", field: "clientNonce")
        }
        let apiVersion = request.apiVersion ?? StripeAPI.issuingElementsAPIVersion
        let (wire, response) = try await createEphemeralKey(
            card: request.card.id, apiVersion: apiVersion, nonce: nonce, idempotencyScope: nil, context: context
        )
        if response.header(StripeAPI.idempotentReplayedHeader) == "true" {
            throw calls.invalidResponse(
                "Stripe replayed an earlier ephemeral key; a reveal session must be new", response)
        }
        guard let secret = wire.secret else {
            throw calls.invalidResponse("Stripe's ephemeral key has no secret", response)
        }
        context.logger.debug(
            "minted a Stripe ephemeral key for Issuing Elements",
            metadata: [
                "provider": .string(http.instance), "purpose": .string(request.purpose.rawValue),
                "stripe.api_version": .string(apiVersion),
            ])
        return RevealSession(
            card: CardRef(id: request.card.id, customer: request.card.customer), purpose: request.purpose, flow: flow,
            material: .ephemeralKey(id: wire.id, secret: Secret(secret)), expires: StripeMapping.date(wire.expires)
        )
    }

    /// `POST /v1/issuing/cards/{id}` with `pin[encrypted_number]` only, sent once (an `Idempotency-Key` of its own, not
    /// repeated once it may have reached Stripe). The answer is the card, without the PIN.
    private func changePIN(
        _ request: RevealSessionRequest, flow: RevealFlow, context: OperationContext
    ) async throws -> RevealSession {
        guard let encrypted = request.encryptedPINBlock else {
            throw CardGatewayError.invalidRequest("is required", field: "encryptedPINBlock")
        }
        var form = StripeForm()
        form.add("pin[encrypted_number]", encrypted.revealedValue)
        var headers = HTTPFields()
        headers[StripeAPI.idempotencyKeyHeader] = UUID().uuidString.lowercased()
        let response = try await send(
            .post, StripeAPI.issuingCard(request.card.id), form: form, headers: headers, repeatability: .never,
            operation: "change PIN", context: context
        )
        let card = try decode(StripeCardWire.self, response, object: "issuing.card", \.object, what: "issuing card")
        guard card.id == request.card.id else {
            throw calls.invalidResponse("Stripe answered the PIN change with another card", response)
        }
        context.logger.debug(
            "relayed an encrypted PIN to Stripe", metadata: ["provider": .string(http.instance)])
        return RevealSession(
            card: CardRef(id: request.card.id, customer: request.card.customer), purpose: request.purpose, flow: flow,
            material: .pinChange(.completed)
        )
    }

    /// `text` with every one of `secrets` replaced by `<redacted>`.
    static func redacting(_ secrets: [String], in text: String) -> String {
        secrets.filter { !$0.isEmpty }.reduce(text) { $0.replacingOccurrences(of: $1, with: "<redacted>") }
    }
}
