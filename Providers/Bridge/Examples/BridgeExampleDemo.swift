import BridgeSimulator
import CardGateway
import CardGatewayExampleKit
import Foundation

extension BridgeExampleRoom {
    public func demo(_ steps: DemoSteps, _ recorder: inout DemoRecorder) async {
        await steps.bridge(&recorder)
    }
}

extension DemoSteps {
    // MARK: Bridge: encrypted payloads

    func bridge(_ recorder: inout DemoRecorder) async {
        typealias Seed = BridgeSimulator.Seed
        let via = RouteTarget.key(RouteKey(issuer: Issuer.bridge))
        let card = CardRef(id: Seed.activeVisa, customer: Seed.customerID)
        await lookup(&recorder, name: Instance.bridge, via: via, card: card)
        await offerAndProvision(
            &recorder, name: Instance.bridge, via: via, card: card,
            inputs: walletInputs)
        // No confirm step: Bridge records nothing when the wallet reports success.
        await lifecycle(
            &recorder, name: Instance.bridge, via: via,
            lockable: CardRef(id: Seed.activeMastercard, customer: Seed.customerID), token: nil)
    }
}
