import CardGatewaySimulation
import Foundation

/// A secure-details link as the simulator keeps it: bound to one card, single-use, expiring on the simulator's clock.
struct PaysafeSimulatorSecureLink: Sendable {
    var cardId: String
    var customerId: String
    var expires: Date
    /// Set when the app first opens the link: it works once.
    var used: Bool = false
}

/// The secure view behind Paysafe's secure-details link.
///
/// `POST …/cards/{cardId}/secure-details` (PaysafeSimulatorHandlers.swift) answers `{"url", "expirationTime"}` where
/// `url` points at this simulator: `http://<the request's Host>/secure-details/view?secureDetailsToken=<token>`. **The
/// path, the query and the page are the simulator's own**: Paysafe documents only "a URL with a short expiration
/// time", not what it serves. The app (a test) opens it with `GET`: the first time within
/// ``PaysafeSimulator/secureLinkLifetime`` it gets an HTML page with the card's details as the simulator has them —
/// the number masked but for its last four (the simulator holds no full card number), the expiry and the cardholder's
/// name; the CVV is never shown. An unknown link is 404; one already opened or expired is 410, in Paysafe's error
/// shape. The token is masked in the journal (``PaysafeSimulator/sensitiveBodyFields`` applies to the query).
extension PaysafeSimulator {
    /// How long a secure-details link works: five minutes (the simulator's choice; Paysafe says only "short").
    public static let secureLinkLifetime: TimeInterval = 300
    /// The secure view's path (the simulator's own).
    public static let secureViewPath = "/secure-details/view"
    /// The query item carrying the link's token.
    public static let secureViewTokenName = "secureDetailsToken"

    /// Secure-details links issued and neither opened nor expired, for tests.
    public var openSecureLinks: Int {
        let now = simulationClock.now()
        return engine.secureLinks.filter { !$0.used && now < $0.expires }.count
    }
}

extension PaysafeSimulatorEngine {
    static func secureViewURL(authority: String, token: String) -> String {
        "http://\(authority.isEmpty ? "127.0.0.1" : authority)\(PaysafeSimulator.secureViewPath)?\(PaysafeSimulator.secureViewTokenName)=\(token)"
    }

    /// `GET /secure-details/view?secureDetailsToken=…`: the page, once.
    func secureView(_ request: PaysafeSimulatorRequest) -> SimulatedResponse {
        locked {
            guard let token = request.queryValue(PaysafeSimulator.secureViewTokenName), !token.isEmpty,
                let link = secureLinks.get(token)
            else {
                return PaysafeSimulatorErrors.error(404, "DW-SECURE-LINK-UNKNOWN", "No such secure-details link.")
            }
            guard !link.used, clock.now() < link.expires else {
                return PaysafeSimulatorErrors.error(
                    410, "DW-SECURE-LINK-GONE", "The secure-details link has expired or was already used.")
            }
            secureLinks.update(token) { $0.used = true }
            guard let card = cards.get(link.cardId), card.customerId == link.customerId else {
                return PaysafeSimulatorErrors.error(404, "5269", "Entity not found")
            }
            let name = customers.get(link.customerId)?.name ?? ""
            let expiry = String(format: "%02d/%02d", card.expiryMonth, card.expiryYear % 100)
            let page = """
                <!doctype html>
                <html><head><meta charset="utf-8"><title>Card details</title></head><body>
                <div id="pan">•••• •••• •••• \(card.lastFour)</div>
                <div id="expiry">\(expiry)</div>
                <div id="cardholder">\(Self.htmlEscaped(name))</div>
                </body></html>
                """
            return SimulatedResponse(
                status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
                body: Data(page.utf8)
            )
        }
    }

    private static func htmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
