import CardGateway
import CardGatewayExampleKit
import AdyenSimulator

extension AdyenExampleRoom {
    /// The demo users' Adyen cards.
    public static var demoUserCards: [DemoUserCard] {
        [
            DemoUserCard(
                user: DemoUserCard.alice, id: "travel", ref: CardRef(id: AdyenSimulator.Seed.activeVisaID),
                displayName: "Travel card (Adyen)")
        ]
    }
}
