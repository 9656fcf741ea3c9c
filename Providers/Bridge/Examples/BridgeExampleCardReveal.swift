import BridgeSimulator
import CardGateway
import CardGatewayExampleKit
import Foundation

extension BridgeExampleRoom {
    public static var revealCard: CardRef? {
        CardRef(id: BridgeSimulator.Seed.activeVisa, customer: BridgeSimulator.Seed.customerID)
    }

    public func revealAppSide(_ offer: RevealOffer, via: RouteTarget, steps: DemoSteps) async throws -> String {
        try await steps.bridgeAppSide(offer, via: via)
    }
}

extension DemoSteps {
    /// Bridge's front end.
    func bridgeAppSide(_ offer: RevealOffer, via: RouteTarget) async throws -> String {
        let frontEnd = DemoFrontEnd()
        let card = offer.card
        let kind = BridgeExampleRoom.kind
        switch offer.flow {
        case .clientNonce:
            guard let base = running?.handle(kind)?.baseURL else {
                throw DemoExpectationFailure(message: "no \(kind) simulator")
            }
            // The front end's secret and timestamp, and the nonce it derives from them (Bridge's guide).
            let secret = "demo-front-end-" + UUID().uuidString
            let timestamp = Int64(Date().timeIntervalSince1970)
            let nonce = BridgeSimulator.clientNonce(secret: secret, timestamp: timestamp)
            let session = try await gateway.revealSession(
                RevealSessionRequest(card: card, purpose: offer.purpose, clientNonce: Secret(nonce)), via: via)
            guard let key = session.material.ephemeralKeySecret else {
                throw DemoExpectationFailure(message: "no ephemeral key in the session")
            }
            var components = URLComponents()
            components.queryItems = [
                URLQueryItem(name: "client_secret", value: secret),
                URLQueryItem(name: "client_timestamp", value: String(timestamp)),
            ]
            let url = try Self.url(base, BridgeSimulator.cardDetailsPath + "?" + (components.percentEncodedQuery ?? ""))
            let read = try await frontEnd.get(url, headers: ["Authorization": "Bearer \(key.revealedValue)"])
            try expect(read.status == 200, "the front end's read answered \(read.status)")
            return
                "the front end reads \(try lastFourOnly(try DemoFrontEnd.object(read.body)["card_number"] as? String)) with the key bound to its nonce"
        default:
            return try await appSide(offer, via: via)
        }
    }
}
