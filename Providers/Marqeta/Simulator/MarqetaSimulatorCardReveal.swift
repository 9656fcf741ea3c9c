import CardGatewaySimulation
import Foundation
import HTTPTypes
import Hummingbird

/// A client access token as the simulator keeps it: bound to one card, single-use, expiring on the simulator's clock.
struct MarqetaSimulatorClientAccessToken: Sendable {
    var cardToken: String
    var created: Date
    var expires: Date
    /// Set when the front end first reads the card with it: the token is single-use.
    var redeemed: Bool = false
}

/// Card details for Marqeta.js: `POST /v3/users/auth/clientaccesstoken` (Marqeta's Core API) and a front-end read.
///
/// - `POST /v3/users/auth/clientaccesstoken {card_token, application_token?}` (HTTP Basic like every Core API call):
///   201 with `client_access_token_response` in the shape of Marqeta's example answer (`created`, `expires`, `token`;
///   ../shared/specs/marqeta-examples/post-users-auth-clientaccesstoken.response-201.json), the token bound to the card
///   and expiring ``clientAccessTokenLifetime`` after `created` on the simulator's clock ("unredeemed client access
///   tokens expire after five minutes", Create client access token). An unknown card is 400 `400620` (the document
///   declares 400, 401 and 500 here).
/// - `GET /marqetajs-simulator/cards/{card_token}` with `Authorization: Bearer <client access token>`: **the
///   simulator's own shape**, standing in for what Marqeta.js fetches to fill its secure frames (Marqeta does not
///   publish that request). It answers the card as the frames would show it — `card_token`, `last_four`,
///   `expiration`, and `pan` masked: the simulator holds no card number, so none is ever shown — and redeems the
///   token (single-use). A missing, unknown, expired or redeemed token is 401 `401002`; a token bound to another card
///   is 403 `403002` (codes the simulator's own).
extension MarqetaSimulator {
    /// Five minutes.
    public static let clientAccessTokenLifetime: TimeInterval = 300
    /// The path prefix of the front-end read (the simulator's own, outside `/v3`).
    public static let marqetaJSPath = "/marqetajs-simulator/cards"
    /// A client access token that is missing, unknown, expired or already redeemed (401; the simulator's own code).
    public static let clientAccessTokenRefused = "401002"
    /// A client access token bound to another card (403; the simulator's own code).
    public static let clientAccessTokenWrongCard = "403002"

    /// How many client access tokens the simulator has issued and not yet seen redeemed or expired, for tests.
    public var openClientAccessTokens: Int {
        let now = simulationClock.now()
        return state.clientAccessTokens.filter { !$0.redeemed && now < $0.expires }.count
    }

    func createClientAccessToken(_ body: Data) throws -> SimulatedResponse {
        let object = try jsonObject(body)
        let cardToken = try string(object, "card_token", max: 255)
        if let application = object["application_token"] {
            guard let text = application as? String, (1...255).contains(text.count) else {
                throw invalid("application_token must be 1-255 chars")
            }
        }
        // 400, not 404: the document declares 400, 401 and 500 for this operation.
        guard state.cards.get(cardToken) != nil else {
            throw failure(400, MarqetaSimulatorErrors.unknownReference, "Card not found: \(cardToken)")
        }
        let now = simulationClock.now()
        let token = state.ids.next(prefix: "cat_sim_", length: 40)
        let issued = MarqetaSimulatorClientAccessToken(
            cardToken: cardToken, created: now, expires: now.addingTimeInterval(Self.clientAccessTokenLifetime))
        state.clientAccessTokens.put(token, issued)
        return .json(
            201,
            [
                "token": token, "created": SimulatorDateTime.format(issued.created),
                "expires": SimulatorDateTime.format(issued.expires),
            ])
    }

    func readCardForFrames(_ request: Request, card cardToken: String) -> SimulatedResponse {
        let refused = errorBody(
            401, Self.clientAccessTokenRefused, "The client access token is missing, unknown, expired or already used")
        guard let token = SimulatorHTTP.bearerToken(request.headers[.authorization]) else { return refused }
        let now = simulationClock.now()
        // Checked and redeemed in one step, so that two reads racing with one token cannot both succeed.
        var answer = refused
        state.clientAccessTokens.update(token) { issued in
            guard !issued.redeemed, now < issued.expires else { return }
            guard issued.cardToken == cardToken else {
                answer = errorBody(
                    403, Self.clientAccessTokenWrongCard, "The client access token was issued for another card")
                return
            }
            guard let card = state.cards.get(cardToken) else {
                answer = errorBody(404, MarqetaSimulatorErrors.notFound, "Card not found")
                return
            }
            issued.redeemed = true
            answer = .json(
                200,
                [
                    "card_token": card.token, "last_four": card.lastFour, "expiration": card.expiration,
                    "pan": card.maskedPAN,
                ])
        }
        return answer
    }
}
