import AdyenSimulator
import CardGateway
import CardGatewayExampleKit
import Foundation

extension AdyenExampleRoom {
    public static var revealCard: CardRef? { CardRef(id: AdyenSimulator.Seed.activeVisaID) }

    public func revealAppSide(_ offer: RevealOffer, via: RouteTarget, steps: DemoSteps) async throws -> String {
        try await steps.adyenAppSide(offer, via: via)
    }
}

extension DemoSteps {
    /// Adyen's front end.
    func adyenAppSide(_ offer: RevealOffer, via: RouteTarget) async throws -> String {
        let card = offer.card
        let purpose = offer.purpose
        switch offer.flow {
        case .encryptedSessionKey:
            // Adyen: the app makes an AES key, encrypts it with the offer's public key, and alone can decrypt the answer.
            guard let publicKey = offer.publicKey?.value else {
                throw DemoExpectationFailure(message: "the offer has no public key")
            }
            let app = try AdyenSimulatorApp.session(publicKeyPEM: publicKey)
            switch purpose {
            case .pinReveal:
                let session = try await gateway.revealSession(
                    RevealSessionRequest(card: card, purpose: purpose, encryptedKey: Secret(app.encryptedKey)), via: via
                )
                guard
                    let block = session.material.encryptedPINBlock.flatMap({ ByteEncoding.decodeHex($0.revealedValue) }
                    ), let token = session.material.pinToken
                else {
                    throw DemoExpectationFailure(message: "no PIN block in the session")
                }
                let pin = try AdyenSimulatorPINBlock.decipher(block, token: token.revealedValue, key: app.key)
                try expect(pin.count >= 4 && pin.allSatisfy(\.isNumber), "the PIN block did not decipher to a PIN")
                return
                    "the app deciphered a \(pin.count)-digit PIN with its own key (the backend relayed an encrypted block)"
            case .pinChange:
                // The app makes the new PIN block and the 16-digit token it encrypts it with (Adyen's
                // PinChangeRequest.token: "The 16-digit token that you used to generate the encryptedPinBlock"): nothing
                // of a PIN reveal is needed or used.
                let change = try AdyenSimulatorApp.pinChange(pin: "2580", key: app.key)
                let session = try await gateway.revealSession(
                    RevealSessionRequest(
                        card: card, purpose: purpose, encryptedKey: Secret(app.encryptedKey),
                        encryptedPINBlock: Secret(change.encryptedPinBlock),
                        pinToken: Secret(change.token)
                    ),
                    via: via
                )
                let status = session.material.pinChangeStatus?.rawValue ?? "?"
                try expect(session.material.pinChangeStatus == .completed, "the PIN change is \(status)")
                return "the app's encrypted PIN block was accepted: \(status)"
            default:
                let session = try await gateway.revealSession(
                    RevealSessionRequest(card: card, purpose: purpose, encryptedKey: Secret(app.encryptedKey)), via: via
                )
                guard let data = session.material.encryptedData else {
                    throw DemoExpectationFailure(message: "no encrypted data in the session")
                }
                let details = try AdyenSimulatorApp.cardDetails(data.revealedValue, key: app.key)
                return
                    "the app decrypted \(try lastFourOnly(details["pan"] as? String)) (the backend relayed encrypted data)"
            }
        default:
            return try await appSide(offer, via: via)
        }
    }
}
