import CardGateway
import CardGatewayAsyncHTTPClient
import Foundation
import HTTPTypes

// The demo's card details and PIN steps: what every room's front end shares. Each room's
// `<Name>ExampleCardReveal.swift` does its provider's side the way the provider's front-end library or SDK does it;
// the demo prints what a cardholder would see on a lock screen and nothing more: the last four digits, never the
// full number, CVC or PIN.

extension RevealPurpose {
    /// The purpose in words.
    public var title: String {
        switch self {
        case .pinReveal: "PIN"
        case .pinChange: "PIN change"
        default: "card details"
        }
    }
}

/// The app's side of a reveal, against the simulators: plain HTTP requests, as the provider's front-end library would
/// send them.
public struct DemoFrontEnd: Sendable {
    let transport = AsyncHTTPClientTransport()

    public init() {}

    /// `GET url` with these headers; the status and the body.
    public func get(_ url: URL, headers: [String: String] = [:]) async throws -> (status: Int, body: Data) {
        guard let scheme = url.scheme, let host = url.host else {
            throw DemoExpectationFailure(message: "not an absolute URL")
        }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        var request = HTTPRequest(method: .get, scheme: scheme, authority: authority, path: path)
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard let field = HTTPField.Name(name) else { continue }
            request.headerFields[field] = value
        }
        let response = try await transport.send(request, body: nil, timeout: .seconds(10))
        return (Int(response.response.status.code), response.body)
    }

    /// The JSON object in `body`.
    public static func object(_ body: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw DemoExpectationFailure(message: "the answer is not a JSON object")
        }
        return object
    }
}

/// What the demo may print of a card number: its last four, after bullets.
public func lastFourOnly(_ number: String?) throws -> String {
    let digits = (number ?? "").filter(\.isNumber)
    guard digits.count >= 4 else { throw DemoExpectationFailure(message: "the app got no card number") }
    return "•••• " + String(digits.suffix(4))
}

extension DemoSteps {
    /// The app's side of the flows every provider does alike (a secure link: the app opens it; it works once); any
    /// other flow is the room's own (``ExampleRoom/revealAppSide(_:via:steps:)``).
    public func appSide(_ offer: RevealOffer, via: RouteTarget) async throws -> String {
        let frontEnd = DemoFrontEnd()
        let card = offer.card
        let purpose = offer.purpose
        switch offer.flow {
        case .secureLink:
            // Paysafe's secure details, Bridge's PIN frame: the app opens the link; it works once.
            let session = try await gateway.revealSession(RevealSessionRequest(card: card, purpose: purpose), via: via)
            guard let link = session.material.secureLink.flatMap({ URL(string: $0.revealedValue) }) else {
                throw DemoExpectationFailure(message: "no link in the session")
            }
            let opened = try await frontEnd.get(link)
            try expect(opened.status == 200, "the link answered \(opened.status)")
            let again = try await frontEnd.get(link)
            try expect(again.status != 200, "the link worked twice")
            let page = String(decoding: opened.body, as: UTF8.self)
            if purpose == .cardDetails {
                return
                    "the app's secure view shows \(try lastFourOnly(Self.lastFour(inPage: page))); the link works once"
            }
            return "the app opened the provider's secure \(purpose.title) frame; the link works once"
        default:
            throw DemoExpectationFailure(message: "the demo does not know the \(offer.flow) flow")
        }
    }

    /// `path` (with its query) on the simulator at `base`'s host and port.
    public static func url(_ base: URL, _ path: String) throws -> URL {
        guard let scheme = base.scheme, let host = base.host,
            let url = URL(string: "\(scheme)://\(host)\(base.port.map { ":\($0)" } ?? "")\(path)")
        else {
            throw DemoExpectationFailure(message: "cannot build the front end's URL")
        }
        return url
    }

    /// The last four digits a secure view shows after its bullets.
    public static func lastFour(inPage page: String) -> String? {
        guard let range = page.range(of: "•••• ", options: .backwards) else { return nil }
        let digits = page[range.upperBound...].prefix(while: \.isNumber)
        return digits.count == 4 ? String(digits) : nil
    }
}
