import CardGateway
import CardGatewayExampleKit
import Foundation
import MarqetaSimulator

extension MarqetaExampleRoom {
    public func demo(_ steps: DemoSteps, _ recorder: inout DemoRecorder) async {
        await steps.marqeta(&recorder)
    }
}

extension DemoSteps {
    // MARK: Marqeta: encrypted payload for all three wallets, card and token transitions

    func marqeta(_ recorder: inout DemoRecorder) async {
        typealias Seed = MarqetaSimulator.Seed
        typealias Inputs = MarqetaSimulator.TestInputs
        let via = RouteTarget.key(RouteKey(issuer: Issuer.marqeta))
        let card = CardRef(id: Seed.activeCard)
        await lookup(&recorder, name: Instance.marqeta, via: via, card: card)
        let samsung = SamsungPayProvisioningInput(
            deviceID: Inputs.samsungDeviceID, walletUserID: Inputs.samsungWalletUserID)
        // Each wallet from another kind of device, as the app reports it (Marqeta's device_type).
        await offerAndProvision(
            &recorder, name: Instance.marqeta, via: via, card: card,
            inputs: walletInputs.merging([.samsungPay: [.samsungPay(samsung)]]) { current, _ in current },
            devices: [.applePay: .watch, .googlePay: .tablet, .samsungPay: .mobilePhone]
        )
        // No confirm step: Marqeta records nothing when the wallet reports success (token transitions follow as webhooks).
        await lifecycle(
            &recorder, name: Instance.marqeta, via: via, lockable: CardRef(id: Seed.lockableCard),
            token: (card: CardRef(id: Seed.walletCard), id: Seed.activeToken)
        )
    }
}
