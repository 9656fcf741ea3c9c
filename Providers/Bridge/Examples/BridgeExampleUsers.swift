import CardGateway
import CardGatewayExampleKit
import BridgeSimulator

extension BridgeExampleRoom {
    /// The demo users' Bridge cards.
    public static var demoUserCards: [DemoUserCard] {
        [
            DemoUserCard(
                user: DemoUserCard.alice, id: "crypto",
                ref: CardRef(id: BridgeSimulator.Seed.activeVisa, customer: BridgeSimulator.Seed.customerID),
                displayName: "Stablecoin card (Bridge)"),
            DemoUserCard(
                user: DemoUserCard.bob, id: "crypto",
                ref: CardRef(
                    id: BridgeSimulator.Seed.otherCustomerActiveVisa, customer: BridgeSimulator.Seed.otherCustomerID),
                displayName: "Stablecoin card (Bridge)"),
        ]
    }
}
