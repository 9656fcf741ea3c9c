@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes

/// Card details and PIN setting for the cardholder without the backend seeing them (docs/CARD_REVEAL.md), by Lithic's
/// embed sessions: the backend creates a session (`POST /v1/cards/{card_token}/embed` `{type, target_origin}`,
/// `create-embed-session-request`) and Lithic answers `{session}` (`embed-session-response`: "Opaque, short-lived
/// credential … Treat this value as sensitive"); the front end loads Lithic's frames with it
/// (`GET /v1/embed?session=…&type=PAN|CVV|EXP_MONTH|EXP_YEAR|PIN_SETTING`). "A session token can only be used to
/// reveal card details (per embed type) or submit a pin a single time"; it expires ten minutes after the request
/// unless `expiration` says sooner.
///
/// Card details (`CARD_EMBED`) are the ``RevealFlow/clientAccessToken`` flow, as Marqeta.js's token is: the session is
/// the credential the front end hands to Lithic's frames, one frame per field. PIN setting (`PIN_SETTING_EMBED`) is the
/// ``RevealFlow/secureLink`` flow, as Bridge's PIN frame is: its one frame's URL, `GET /v1/embed` on the instance's
/// base URL with the session and `type=PIN_SETTING`. Lithic offers no PIN reveal.
extension LithicProvider: CardReveal {
    /// "If omitted, the session expires 10 minutes after the request" (`create-embed-session-request.expiration`).
    static let embedSessionLifetime = Duration.seconds(600)

    /// Looks the card up (`GET /v1/cards/{card_token}`): a `CLOSED` card is refused with `invalidCardState`, any other
    /// state is offered (Lithic decides what its frames show).
    public func revealOffer(
        for card: CardRef, purpose: RevealPurpose, context: OperationContext
    ) async throws -> RevealOffer {
        let flow = try revealFlow(purpose)
        try validate(token: card.id, field: "card.id", what: "a Lithic card token")
        try await checkRevealable(card, context: context)
        return RevealOffer(card: card, purpose: purpose, flow: flow, sessionLifetime: Self.embedSessionLifetime)
    }

    /// The offer's check first (a client may skip the offer), then `POST /v1/cards/{card_token}/embed` with `type`
    /// (`CARD_EMBED` or `PIN_SETTING_EMBED`) and `target_origin` (the instance's `embedTargetOrigin`). The session
    /// comes back as a ``Secret``: card details as ``RevealMaterial/clientAccessToken(_:)``, PIN setting as the PIN
    /// frame's URL in ``RevealMaterial/secureLink(_:)``. Sent once (`.never`): a repeat would make another live session,
    /// so a call that may have reached Lithic fails with `mayHaveReachedProvider` and the front end asks again.
    public func revealSession(_ request: RevealSessionRequest, context: OperationContext) async throws -> RevealSession
    {
        let flow = try revealFlow(request.purpose)
        try request.problems(in: flow).throwIfAny()
        try validate(token: request.card.id, field: "card.id", what: "a Lithic card token")
        guard let origin = options.embedTargetOrigin else {
            throw CardGatewayError(
                .invalidConfiguration,
                "providers.\(http.instance).options.embedTargetOrigin is not set: Lithic's embed sessions need the origin of the page that shows them",
                provider: http.instance, providerKind: .lithic)
        }
        try await checkRevealable(request.card, context: context)
        let type = request.purpose == .pinChange ? "PIN_SETTING_EMBED" : "CARD_EMBED"
        let body = try calls.encode(LithicWireEmbedRequest(type: type, targetOrigin: origin))
        let response = try await calls.send(
            ProviderRequest(
                .post, LithicAPI.embed(request.card.id), headers: calls.headers(json: true), body: body,
                repeatability: .never, operation: "create an embed session"),
            context: context
        )
        let answer = try calls.decode(LithicWireEmbedSession.self, from: response, what: "embed session")
        guard let session = answer.session, !session.isEmpty else {
            throw calls.invalidResponse("Lithic's embed session answer has no session", response)
        }
        let material: RevealMaterial
        if request.purpose == .pinChange {
            var components = URLComponents(
                url: http.baseURL.appendingPathComponent("v1/embed"), resolvingAgainstBaseURL: false)
            components?.queryItems = [
                URLQueryItem(name: "session", value: session), URLQueryItem(name: "type", value: "PIN_SETTING"),
            ]
            // `+` and `/` of a Base64 session would read as a space and a path separator in a query.
            let query = components?.percentEncodedQuery?
                .replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F")
            components?.percentEncodedQuery = query
            guard let url = components?.url?.absoluteString else {
                throw calls.invalidResponse("Lithic's embed session cannot be put in a frame URL", response)
            }
            material = .secureLink(Secret(url))
        } else {
            material = .clientAccessToken(Secret(session))
        }
        return RevealSession(card: request.card, purpose: request.purpose, flow: flow, material: material)
    }

    /// The card exists (`GET /v1/cards/{card_token}`; Lithic's 404 is `notFound`) and is not `CLOSED`
    /// (`invalidCardState`: a closed card has no details to show nor PIN to set).
    private func checkRevealable(_ card: CardRef, context: OperationContext) async throws {
        let wire = try await fetchCard(card.id, context: context)
        if wire.state == LithicAPI.CardState.closed {
            throw CardGatewayError(
                .invalidCardState, "a CLOSED Lithic card has no details to show nor PIN to set",
                provider: http.instance, providerKind: .lithic)
        }
    }

    private func revealFlow(_ purpose: RevealPurpose) throws -> RevealFlow {
        guard let flow = descriptor.revealFlows[purpose] else {
            throw CardGatewayError(
                .unsupported, "Lithic's embed sessions show card details and set a PIN; \(purpose) is not offered",
                provider: http.instance, providerKind: .lithic)
        }
        return flow
    }
}
