import AdyenSimulator
import BridgeSimulator
import CardGateway
import Foundation
import HTTPTypes
import LithicSimulator
import MarqetaSimulator
import PaysafeSimulator
import StripeSimulator

/// What a phone would send: the inputs the examples pass to provisioning, standing in for PassKit and Google Pay.
public enum SampleInputs: Sendable {
    /// What PassKit hands the app for encrypted-payload provisioning: a certificate chain (leaf first, DER), a
    /// nonce and its signature. The certificates are well-formed DER generated for the simulators.
    public static var applePay: ApplePayProvisioningInput {
        ApplePayProvisioningInput(
            certificates: [
                BridgeSimulator.TestInputs.leafCertificate, BridgeSimulator.TestInputs.subordinateCertificate,
            ],
            nonce: BridgeSimulator.TestInputs.nonce, nonceSignature: BridgeSimulator.TestInputs.nonceSignature
        )
    }

    /// What Google Pay's push provisioning API hands the app.
    public static var googlePay: GooglePayProvisioningInput {
        GooglePayProvisioningInput(
            clientDeviceID: BridgeSimulator.TestInputs.googleDeviceID,
            clientWalletAccountID: BridgeSimulator.TestInputs.googleWalletAccountID)
    }

    /// The API version Stripe's mobile SDK asks its ephemeral keys for (the Stripe iOS and Android SDKs send it).
    public static let stripeSDKAPIVersion = "2020-08-27"

    /// What an issuer SDK hands back in one relay round (Adyen) when given `sdkInput`: opaque bytes the backend
    /// passes on untouched. Adyen's simulator accepts only an output that answers the latest `sdkInput` it handed
    /// out, and reads `googlePay` in it as a Google Pay exchange.
    public static func issuerSDKOutput(wallet: Wallet, answering sdkInput: SensitiveData) -> SensitiveData {
        let marker = wallet == .googlePay ? AdyenSimulator.Seed.googlePayMarker : "applePay"
        return SensitiveData(
            AdyenSimulator.sdkOutput(answering: sdkInput.revealedBytes, extra: Data(" sdk-output \(marker)".utf8)))
    }
}

extension EmbeddedSimulators {
    /// One signed webhook delivery per provider that sends them, as the provider would POST it: Paysafe's card
    /// status change, Adyen's network token update, Stripe's `issuing_card.updated`, Bridge's card account
    /// update. Trust Payments sends none the gateway verifies (nil).
    public func sampleWebhook(instance: String, now: Date = Date()) throws -> WebhookDelivery? {
        let signed: (headers: [(String, String)], body: Data)
        switch instance {
        case Instance.paysafe:
            signed = paysafe.signedWebhook(
                cardID: PaysafeSimulator.Seed.activeVisaCardID, oldStatus: "ACTIVE", newStatus: "LOCKED",
                eventID: "evt-demo-1")
        case Instance.adyen:
            signed = adyen.signedWebhook(
                type: AdyenSimulator.networkTokenUpdated, token: AdyenSimulator.Seed.activeApplePayTokenID)
        case Instance.stripe:
            guard let card = stripe.cardObject(StripeSimulator.Seed.activeCardID) else {
                throw CardGatewayError(.invalidConfiguration, "the Stripe simulator lost its seeded card")
            }
            signed = stripe.signedWebhook(
                type: "issuing_card.updated", object: card, previousAttributes: ["status": "inactive"], timestamp: now)
        case Instance.bridge:
            guard
                let delivery = try bridge.signedCardAccountWebhook(
                    cardAccountID: BridgeSimulator.Seed.activeVisa, previousStatus: "frozen", at: now)
            else {
                throw CardGatewayError(.invalidConfiguration, "the Bridge simulator lost its seeded card account")
            }
            signed = delivery
        case Instance.marqeta:
            signed = marqeta.signedCardTransitionWebhook(
                card: MarqetaSimulator.Seed.lockableCard, state: "SUSPENDED", type: "state.suspended")
        case Instance.lithic:
            signed = lithic.signedCardUpdated(
                card: LithicSimulator.Seed.lockableCard, state: "PAUSED", previous: "OPEN", at: now)
        default:
            return nil
        }
        var headers = HTTPFields()
        for (name, value) in signed.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            headers.append(HTTPField(name: fieldName, value: value))
        }
        return WebhookDelivery(headers: headers, body: signed.body)
    }
}
