import CardGateway
import CardGatewayExampleKit
import Foundation
import MarqetaSimulator

extension MarqetaExampleRoom {
    public static var revealCard: CardRef? { CardRef(id: MarqetaSimulator.Seed.activeCard) }

    public func revealAppSide(_ offer: RevealOffer, via: RouteTarget, steps: DemoSteps) async throws -> String {
        try await steps.marqetaAppSide(offer, via: via)
    }
}

extension DemoSteps {
    /// Marqeta's front end.
    func marqetaAppSide(_ offer: RevealOffer, via: RouteTarget) async throws -> String {
        let frontEnd = DemoFrontEnd()
        let card = offer.card
        let purpose = offer.purpose
        let kind = MarqetaExampleRoom.kind
        switch offer.flow {
        case .clientAccessToken:
            // Marqeta.js: the token opens the card in Marqeta's frames (the simulator's stand-in read).
            let session = try await gateway.revealSession(RevealSessionRequest(card: card, purpose: purpose), via: via)
            guard let token = session.material.clientAccessToken, let base = running?.handle(kind)?.baseURL else {
                throw DemoExpectationFailure(message: "no client access token, or no simulator")
            }
            let url = try Self.url(base, MarqetaSimulator.marqetaJSPath + "/" + card.id)
            let read = try await frontEnd.get(url, headers: ["Authorization": "Bearer \(token.revealedValue)"])
            try expect(read.status == 200, "the front end's read answered \(read.status)")
            let again = try await frontEnd.get(url, headers: ["Authorization": "Bearer \(token.revealedValue)"])
            try expect(again.status != 200, "the token worked twice")
            return
                "Marqeta.js shows \(try lastFourOnly(try DemoFrontEnd.object(read.body)["last_four"] as? String)); the token works once"
        default:
            return try await appSide(offer, via: via)
        }
    }
}
