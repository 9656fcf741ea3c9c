@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Card details for the cardholder without the backend seeing them (CardDetailsAndPIN.md), by Marqeta.js.
///
/// The backend asks Marqeta for a client access token bound to the card (`POST /users/auth/clientaccesstoken
/// {card_token}`, Create client access token, core-api/users/user-authentication); the front end hands it to
/// Marqeta.js, which shows the number, expiry and CVV2 in Marqeta's secure iframes. The token is single-use and
/// "unredeemed client access tokens expire after five minutes" (the same page). Only ``RevealPurpose/cardDetails`` is
/// declared: Marqeta.js v2.0.0 mentions showing the PIN too, but how its PIN reveal is authorised could not be
/// confirmed (Marqeta's PIN Reveal is a beta needing the program's opt-in), so it is not offered (README, "Card
/// details and PIN"). The clear-data path (`GET /cards/{token}/showpan`) is never used.
extension MarqetaProvider: CardReveal {
    /// Looks the card up (`GET /cards/{token}`): a `TERMINATED` card is refused with `invalidCardState`, any other
    /// state is offered (Marqeta itself decides what the frames may show). No token is asked for yet.
    public func revealOffer(
        for card: CardRef, purpose: RevealPurpose, context: OperationContext
    ) async throws -> RevealOffer {
        try checkRevealPurpose(purpose)
        try validate(token: card.id, field: "card.id", what: "a Marqeta card token")
        try await checkRevealable(card, context: context)
        return RevealOffer(
            card: card, purpose: purpose, flow: .clientAccessToken,
            sessionLifetime: MarqetaAPI.clientAccessTokenLifetime)
    }

    /// The offer's check first (`GET /cards/{token}`: an unknown card is `notFound`, a `TERMINATED` one
    /// `invalidCardState`, before any token is asked for: a client can skip the offer), then `POST
    /// /users/auth/clientaccesstoken {"card_token"}` → 201 `client_access_token_response` (Marqeta's example answer
    /// has `created`, `expires`, `token`; `card_token` is optional in the document). The token comes back as a
    /// ``Secret`` in ``RevealMaterial/clientAccessToken(_:)``; an answer bound to another card, or without a token, is
    /// refused as `invalidResponse` (the token never appears in the error). Never stored or replayed: each call asks
    /// Marqeta for a new token.
    ///
    /// The POST is sent once (`.never`): a repeated call mints another token, so a call that may have reached Marqeta
    /// (a dropped connection, a timeout after the request was sent) fails with `mayHaveReachedProvider` and is not
    /// retried; the front end asks for a new session instead.
    public func revealSession(_ request: RevealSessionRequest, context: OperationContext) async throws -> RevealSession
    {
        try checkRevealPurpose(request.purpose)
        try request.problems(in: .clientAccessToken).throwIfAny()
        try validate(token: request.card.id, field: "card.id", what: "a Marqeta card token")
        try await checkRevealable(request.card, context: context)
        let body = try calls.encode(MarqetaWireClientAccessTokenRequest(cardToken: request.card.id))
        // Asking again would mint another live token: sent once, never repeated by the client.
        let response = try await calls.send(
            ProviderRequest(
                .post, MarqetaAPI.clientAccessToken, headers: calls.headers(json: true), body: body,
                repeatability: .never,
                operation: "create a client access token"
            ),
            context: context
        )
        let answer = try calls.decode(MarqetaWireClientAccessToken.self, from: response, what: "client access token")
        guard let token = answer.token, !token.isEmpty else {
            throw calls.invalidResponse("Marqeta's client access token answer has no token", response)
        }
        if let bound = answer.cardToken, bound != request.card.id {
            throw calls.invalidResponse(
                "Marqeta's client access token is bound to another card than the one asked for", response)
        }
        return RevealSession(
            card: request.card, purpose: request.purpose, flow: .clientAccessToken,
            material: .clientAccessToken(Secret(token)),
            expires: MarqetaMapping.date(answer.expires)
        )
    }

    /// What the offer and the session both check: the card exists (`GET /cards/{token}`; Marqeta's 404 is
    /// `notFound`) and is not `TERMINATED` (`invalidCardState`, the adapter's choice: a terminated card has no details
    /// to show).
    private func checkRevealable(_ card: CardRef, context: OperationContext) async throws {
        let wire = try await fetchCard(card.id, context: context)
        if wire.state == MarqetaAPI.CardState.terminated {
            throw CardGatewayError(
                .invalidCardState, "a TERMINATED Marqeta card has no details to show", provider: http.instance,
                providerKind: .marqeta
            )
        }
    }

    private func checkRevealPurpose(_ purpose: RevealPurpose) throws {
        guard purpose == .cardDetails else {
            throw CardGatewayError(
                .unsupported, "Marqeta shows card details by Marqeta.js; \(purpose) is not offered",
                provider: http.instance, providerKind: .marqeta
            )
        }
    }
}
