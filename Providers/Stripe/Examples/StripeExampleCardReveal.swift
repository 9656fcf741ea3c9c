import CardGateway
import CardGatewayExampleKit
import Foundation
import StripeSimulator

extension StripeExampleRoom {
    public static var revealCard: CardRef? { CardRef(id: StripeSimulator.Seed.activeCardID) }

    public func revealAppSide(_ offer: RevealOffer, via: RouteTarget, steps: DemoSteps) async throws -> String {
        try await steps.stripeAppSide(offer, via: via)
    }
}

extension DemoSteps {
    /// Stripe's front end.
    func stripeAppSide(_ offer: RevealOffer, via: RouteTarget) async throws -> String {
        let frontEnd = DemoFrontEnd()
        let card = offer.card
        let purpose = offer.purpose
        let kind = StripeExampleRoom.kind
        switch offer.flow {
        case .clientNonce:
            guard let base = running?.handle(kind)?.baseURL else {
                throw DemoExpectationFailure(message: "no \(kind) simulator")
            }
            // Stripe.js: a nonce for the card, then the card with the key's secret and the nonce.
            let nonce = "ephkn_pub_demo" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let session = try await gateway.revealSession(
                RevealSessionRequest(
                    card: card, purpose: offer.purpose, clientNonce: Secret(nonce), apiVersion: offer.apiVersion),
                via: via
            )
            guard let key = session.material.ephemeralKeySecret else {
                throw DemoExpectationFailure(message: "no ephemeral key in the session")
            }
            let expand =
                offer.purpose == .pinReveal ? "expand%5B%5D=pin.number" : "expand%5B%5D=number&expand%5B%5D=cvc"
            let url = try Self.url(base, "/v1/issuing/cards/\(card.id)?\(expand)&nonce=\(nonce)")
            var headers = ["Authorization": "Bearer \(key.revealedValue)"]
            if let version = offer.apiVersion { headers["Stripe-Version"] = version }
            let read = try await frontEnd.get(url, headers: headers)
            try expect(read.status == 200, "the front end's read answered \(read.status)")
            let object = try DemoFrontEnd.object(read.body)
            if offer.purpose == .pinReveal {
                let pin = (object["pin"] as? [String: Any])?["number"] as? String ?? ""
                try expect(pin.count >= 4, "Stripe.js got no PIN")
                return
                    "Stripe's PIN element shows a \(pin.count)-digit PIN, read with the key bound to the front end's nonce"
            }
            return
                "Stripe's elements show \(try lastFourOnly(object["number"] as? String)), read with the key bound to the front end's nonce"
        case .encryptedPIN:
            // Stripe: the front end encrypts the new PIN under Stripe's public key (Stripe's PIN management guide,
            // "Encrypting PINs") and the backend relays the ciphertext as pin[encrypted_number]; only Stripe can read
            // it. The simulator keeps the ciphertext without reading it, so the demo's front end sends random bytes in
            // its place, and says so.
            let ciphertext = Data((0..<256).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            let session = try await gateway.revealSession(
                RevealSessionRequest(card: card, purpose: purpose, encryptedPINBlock: Secret(ciphertext)), via: via)
            let status = session.material.pinChangeStatus?.rawValue ?? "?"
            try expect(session.material.pinChangeStatus == .completed, "the PIN change is \(status)")
            return
                "the front end's encrypted PIN (random bytes here: the simulator does not decrypt) was relayed: \(status)"
        default:
            return try await appSide(offer, via: via)
        }
    }
}
