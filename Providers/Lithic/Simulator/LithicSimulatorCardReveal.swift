import CardGatewaySimulation
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

// Lithic's embed sessions: `POST /v1/cards/{card_token}/embed` makes a short-lived, single-use session
// (`create-embed-session-request` → `embed-session-response`) and `GET /v1/embed?session=&type=` serves the frame
// (HTML) it opens, without the API key (the browser loads it).
extension LithicSimulator {
    /// `type` (`CARD_EMBED`, `PIN_SETTING_EMBED`) and `target_origin` (an https origin without path, query, fragment
    /// or credentials) required; `expiration` (Unix seconds, in the future, at most ten minutes away; ten minutes by
    /// default); `max_pin_length` 4–8, refused for `CARD_EMBED`. A `CLOSED` card is refused (422, *unconfirmed*).
    /// Answers `{session}`: 32 random-looking bytes, Base64URL.
    func createEmbedSession(_ context: SimulatorContext, _ body: Data) throws -> SimulatedResponse {
        let token = context.parameters.get("card_token") ?? ""
        let object = try jsonObject(body)
        guard let type = object["type"] as? String, ["CARD_EMBED", "PIN_SETTING_EMBED"].contains(type) else {
            throw invalid("type must be CARD_EMBED or PIN_SETTING_EMBED")
        }
        guard let origin = object["target_origin"] as? String, Self.isOrigin(origin) else {
            throw invalid("target_origin must be an https origin without path, query, fragment or credentials")
        }
        if let length = object["max_pin_length"] {
            guard type == "PIN_SETTING_EMBED" else { throw invalid("max_pin_length is not supported for CARD_EMBED") }
            guard let number = length as? Int, (4...8).contains(number) else {
                throw invalid("max_pin_length must be from 4 through 8")
            }
        }
        let now = simulationClock.now()
        var expires = now.addingTimeInterval(600)
        if let value = object["expiration"] {
            guard let seconds = value as? Int, Double(seconds) > now.timeIntervalSince1970,
                Double(seconds) <= now.timeIntervalSince1970 + 600
            else {
                throw invalid("expiration must be in the future and at most 10 minutes away")
            }
            expires = Date(timeIntervalSince1970: Double(seconds))
        }
        guard let card = state.cards.get(token) else { throw failure(404, "Card not found.") }
        guard card.state != "CLOSED" else { throw failure(422, "Card is CLOSED.") }
        var bytes = Data()
        for _ in 0..<2 { bytes += Data(state.ids.uuid().utf8) }
        let session = Data(SHA256.hash(data: bytes)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        state.sessions.put(
            session, LithicSimulatorEmbedSession(cardToken: token, type: type, targetOrigin: origin, expires: expires))
        return .json(200, ["session": session])
    }

    /// `GET /v1/embed?session=&type=`: `PAN`, `CVV`, `EXP_MONTH`, `EXP_YEAR` for a `CARD_EMBED` session,
    /// `PIN_SETTING` for a `PIN_SETTING_EMBED` one. Each type of a session opens once ("Attempting to re-use session
    /// tokens will result in 401's"); an expired or unknown session is 401 too. The frame is HTML; the card data
    /// shown is the simulator's made-up test data (its PAN is the test number 4000 0000 0000 and the last four).
    func embedFrame(_ request: Request) -> SimulatedResponse {
        let query = SimulatorHTTP.queryItems(request.uri.query)
        let value = query.first { $0.name == "session" }?.value ?? ""
        let type = query.first { $0.name == "type" }?.value ?? ""
        guard ["PAN", "CVV", "EXP_MONTH", "EXP_YEAR", "PIN_SETTING"].contains(type) else {
            return LithicSimulatorErrors.body(400, "type must be PAN, CVV, EXP_MONTH, EXP_YEAR or PIN_SETTING")
        }
        let key = value + "#" + type
        guard let session = state.sessions.get(value), session.expires > simulationClock.now(),
            state.sessions.get(key) == nil, (type == "PIN_SETTING") == (session.type == "PIN_SETTING_EMBED"),
            let card = state.cards.get(session.cardToken)
        else {
            return LithicSimulatorErrors.body(401, "The embed session is not valid.")
        }
        state.sessions.put(key, session)
        let shown: String
        switch type {
        case "PAN": shown = "4000 0000 0000 " + card.lastFour
        case "CVV": shown = String(Self.hexDigest("cvv|" + card.token, count: 12).filter(\.isNumber).prefix(3))
        case "EXP_MONTH": shown = card.expMonth
        case "EXP_YEAR": shown = card.expYear
        default: shown = "<form method=\"post\"><input name=\"pin\" type=\"password\" inputmode=\"numeric\"></form>"
        }
        let html = "<!doctype html><html><body data-type=\"\(type)\"><div id=\"value\">\(shown)</div></body></html>"
        return SimulatedResponse(
            status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(html.utf8)
        )
        .withHeader("Content-Security-Policy", "frame-ancestors \(session.targetOrigin)")
    }

    static func isOrigin(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), components.scheme == "https",
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
            components.path.isEmpty, components.query == nil, components.fragment == nil
        else { return false }
        return true
    }
}
