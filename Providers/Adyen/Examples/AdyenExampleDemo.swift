import AdyenSimulator
import CardGateway
import CardGatewayExampleKit
import Foundation

extension AdyenExampleRoom {
    public func demo(_ steps: DemoSteps, _ recorder: inout DemoRecorder) async {
        await steps.adyen(&recorder)
    }
}

extension DemoSteps {
    // MARK: Adyen: issuer SDK relay over two round trips

    func adyen(_ recorder: inout DemoRecorder) async {
        typealias Seed = AdyenSimulator.Seed
        let via = RouteTarget.key(RouteKey(issuer: Issuer.adyen))
        let card = CardRef(id: Seed.activeVisaID)
        await lookup(&recorder, name: Instance.adyen, via: via, card: card)
        // The app's SDK answers each sdkInput in turn: a start, then one output per round trip (filled in from the
        // previous response by `offerAndProvision`).
        func relay(_ wallet: Wallet) -> [ProvisioningInput] {
            [.issuerSDK(output: nil)]
                + (1...Seed.roundTripsToComplete).map { _ in .issuerSDK(output: SensitiveData(Data())) }
        }
        await offerAndProvision(
            &recorder, name: Instance.adyen, via: via, card: card,
            inputs: [.applePay: relay(.applePay), .googlePay: relay(.googlePay)],
            answer: SampleInputs.issuerSDKOutput)
        await lifecycle(
            &recorder, name: Instance.adyen, via: via, lockable: CardRef(id: Seed.lockableVisaID),
            token: (card: CardRef(id: Seed.walletVisaID), id: Seed.walletActiveTokenID)
        )
    }
}
