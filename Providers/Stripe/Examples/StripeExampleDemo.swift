import CardGateway
import CardGatewayExampleKit
import Foundation
import StripeSimulator

extension StripeExampleRoom {
    public func demo(_ steps: DemoSteps, _ recorder: inout DemoRecorder) async {
        await steps.stripe(&recorder)
    }
}

extension DemoSteps {
    // MARK: Stripe: ephemeral keys for the issuer SDK

    func stripe(_ recorder: inout DemoRecorder) async {
        let via = RouteTarget.key(RouteKey(issuer: Issuer.stripe))
        let card = CardRef(id: StripeSimulator.Seed.activeCardID)
        await lookup(&recorder, name: Instance.stripe, via: via, card: card)
        let key = [ProvisioningInput.issuerSDKKey(apiVersion: SampleInputs.stripeSDKAPIVersion)]
        await offerAndProvision(
            &recorder, name: Instance.stripe, via: via, card: card, inputs: [.applePay: key, .googlePay: key])
        await lifecycle(
            &recorder, name: Instance.stripe, via: via,
            lockable: CardRef(id: StripeSimulator.Seed.activeCardWithoutPrimaryAccountIdentifierID),
            token: (card: card, id: StripeSimulator.Seed.activeApplePayTokenID)
        )
    }
}
