import CardGateway
import CardGatewayExampleKit
import PaysafeSimulator

extension PaysafeExampleRoom {
    /// The demo users' Paysafe cards.
    public static var demoUserCards: [DemoUserCard] {
        [
            DemoUserCard(
                user: DemoUserCard.alice, id: "everyday",
                ref: CardRef(id: PaysafeSimulator.Seed.activeCardID, customer: PaysafeSimulator.Seed.euCustomer),
                displayName: "Everyday card (Paysafe)"),
            DemoUserCard(
                user: DemoUserCard.alice, id: "frozen",
                ref: CardRef(id: PaysafeSimulator.Seed.lockedCardID, customer: PaysafeSimulator.Seed.euCustomer),
                displayName: "Locked card (Paysafe)"),
        ]
    }
}
