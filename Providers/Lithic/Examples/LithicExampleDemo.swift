import CardGateway
import CardGatewayExampleKit
import Foundation
import LithicSimulator

extension LithicExampleRoom {
    public func demo(_ steps: DemoSteps, _ recorder: inout DemoRecorder) async {
        await steps.lithic(&recorder)
    }
}

extension DemoSteps {
    // MARK: Lithic: encrypted payload for all three wallets, card state and tokenization actions

    func lithic(_ recorder: inout DemoRecorder) async {
        typealias Seed = LithicSimulator.Seed
        let via = RouteTarget.key(RouteKey(issuer: Issuer.lithic))
        let card = CardRef(id: Seed.activeCard)
        await lookup(&recorder, name: Instance.lithic, via: via, card: card)
        let samsung = SamsungPayProvisioningInput(
            deviceID: Seed.TestInputs.samsungDeviceID, walletUserID: Seed.TestInputs.samsungWalletUserID)
        await offerAndProvision(
            &recorder, name: Instance.lithic, via: via, card: card,
            inputs: walletInputs.merging([.samsungPay: [.samsungPay(samsung)]]) { current, _ in current }
        )
        // No confirm step: Lithic records nothing when the wallet reports success (tokenization.* events follow).
        await lifecycle(
            &recorder, name: Instance.lithic, via: via, lockable: CardRef(id: Seed.lockableCard),
            token: (card: CardRef(id: Seed.walletCard), id: Seed.activeToken)
        )
    }
}
