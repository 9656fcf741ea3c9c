import CardGateway
import CardGatewayExampleKit
import Foundation
import LithicSimulator

extension LithicExampleRoom {
    public static var revealCard: CardRef? { CardRef(id: LithicSimulator.Seed.activeCard) }

    public func revealAppSide(_ offer: RevealOffer, via: RouteTarget, steps: DemoSteps) async throws -> String {
        try await steps.lithicAppSide(offer, via: via)
    }
}

extension DemoSteps {
    /// Lithic's front end.
    func lithicAppSide(_ offer: RevealOffer, via: RouteTarget) async throws -> String {
        let frontEnd = DemoFrontEnd()
        let card = offer.card
        let purpose = offer.purpose
        let kind = LithicExampleRoom.kind
        switch offer.flow {
        case .clientAccessToken:
            // Lithic's embed session: the front end loads Lithic's frames with it (`GET /v1/embed?session=&type=`),
            // each frame type once.
            let session = try await gateway.revealSession(RevealSessionRequest(card: card, purpose: purpose), via: via)
            guard let token = session.material.clientAccessToken, let base = running?.handle(kind)?.baseURL,
                let encoded = token.revealedValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics)
            else {
                throw DemoExpectationFailure(message: "no embed session, or no simulator")
            }
            let url = try Self.url(base, "/v1/embed?session=\(encoded)&type=PAN")
            let frame = try await frontEnd.get(url)
            try expect(frame.status == 200, "the PAN frame answered \(frame.status)")
            let again = try await frontEnd.get(url)
            try expect(again.status != 200, "the session opened the PAN frame twice")
            let page = String(decoding: frame.body, as: UTF8.self)
            let shown = page.range(of: "<div id=\"value\">").map { start in
                String(page[start.upperBound...].prefix { $0 != "<" })
            }
            return "Lithic's PAN frame shows \(try lastFourOnly(shown)); the session opens it once"
        default:
            return try await appSide(offer, via: via)
        }
    }
}
