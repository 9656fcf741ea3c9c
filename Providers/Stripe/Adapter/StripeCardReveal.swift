@_spi(AdapterSupport) import CardGateway
import Foundation

// Card details and PIN by Stripe Issuing Elements (docs/CARD_REVEAL.md, README "Card details and PIN").
//
// Stripe.js makes a nonce for one card (`stripe.createEphemeralKeyNonce({issuingCard})`); the backend exchanges it for an
// ephemeral key (`POST /v1/ephemeral_keys` with `issuing_card` and `nonce`, pinned by `Stripe-Version`) and hands the
// key's secret back; Stripe.js then reads the card from Stripe with the secret and the nonce and shows the number, CVC,
// expiry or PIN in Stripe-hosted iframes (`issuingCardNumberDisplay`, `…CvcDisplay`, `…ExpiryDisplay`,
// `…PinDisplay`). The backend never sees them. The same key serves card details and the PIN: the front end chooses
// which elements it mounts.
//
// Not offered: reading the card with `expand[]=number`/`expand[]=cvc` (or `pin.number`) under the secret key, which
// would put the clear data in the backend; this adapter never asks for those expansions, and its card type has no
// field that could hold them. Stripe documents no PIN change by API or Elements (cardholders change it at an ATM).
extension StripeProvider: CardReveal {
    /// Asks Stripe for the card (`GET /v1/issuing/cards/{id}`) to refuse what Issuing Elements cannot show: a
    /// cancelled card (``CardGatewayError/Code/invalidCardState``), and, for card details, a physical card (Stripe
    /// gives the number and CVC of virtual cards only). The offer names the `Stripe-Version` the session mints with when
    /// the front end names none.
    public func revealOffer(
        for card: CardRef, purpose: RevealPurpose, context: OperationContext
    ) async throws -> RevealOffer {
        guard let flow = descriptor.revealFlows[purpose] else {
            throw CardGatewayError(
                .unsupported, "Stripe Issuing Elements offers no \(purpose)", provider: http.instance,
                providerKind: .stripe)
        }
        try Self.validate(cardID: card.id)
        let wire = try await fetchCard(card.id, context: context)
        if wire.status == "canceled" {
            throw CardGatewayError(
                .invalidCardState, "the card is canceled: Stripe shows no details or PIN of a canceled card",
                provider: http.instance, providerKind: .stripe
            )
        }
        if purpose == .cardDetails, wire.type == "physical" {
            throw CardGatewayError(
                .invalidCardState, "Stripe gives the number and CVC of virtual cards only; this card is physical",
                provider: http.instance, providerKind: .stripe
            )
        }
        return RevealOffer(
            card: CardRef(id: wire.id, customer: card.customer), purpose: purpose, flow: flow,
            apiVersion: StripeAPI.issuingElementsAPIVersion)
    }

    /// Mints an ephemeral key for the card bound to the front end's nonce: `POST /v1/ephemeral_keys` with
    /// `issuing_card` and `nonce`, `Stripe-Version` the request's ``RevealSessionRequest/apiVersion`` (the one the front
    /// end's Stripe.js uses) or ``StripeAPI/issuingElementsAPIVersion``. The session carries the key's id and secret and
    /// expires when Stripe says. Each call mints a new key under a fresh `Idempotency-Key` (the operation's key is not
    /// used), so a repeat is never Stripe's replay of an earlier key.
    public func revealSession(_ request: RevealSessionRequest, context: OperationContext) async throws -> RevealSession
    {
        guard let flow = descriptor.revealFlows[request.purpose] else {
            throw CardGatewayError(
                .unsupported, "Stripe Issuing Elements offers no \(request.purpose)", provider: http.instance,
                providerKind: .stripe)
        }
        var problems = request.problems(in: flow)
        Self.check(cardID: request.card.id, field: "card.id", into: &problems)
        if let nonce = request.clientNonce, nonce.revealedValue.utf8.count > StripeAPI.nonceMaxLength {
            problems.add("clientNonce", "must be at most \(StripeAPI.nonceMaxLength) characters")
        }
        if let version = request.apiVersion, !StripeAPIVersion.isValid(version) {
            problems.add("apiVersion", "must be a Stripe API version such as 2020-03-02")
        }
        try problems.throwIfAny()
        guard let nonce = request.clientNonce else {
            throw CardGatewayError.invalidRequest("is required", field: "clientNonce")
        }
        let apiVersion = request.apiVersion ?? StripeAPI.issuingElementsAPIVersion

        let (wire, response) = try await createEphemeralKey(
            card: request.card.id, apiVersion: apiVersion, nonce: nonce, idempotencyScope: nil, context: context
        )
        if response.header(StripeAPI.idempotentReplayedHeader) == "true" {
            throw invalidResponse("Stripe replayed an earlier ephemeral key; a reveal session must be new", response)
        }
        guard let secret = wire.secret else { throw invalidResponse("Stripe's ephemeral key has no secret", response) }
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
}
