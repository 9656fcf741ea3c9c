import CardGateway
import CardGatewayExampleKit
import StripeSimulator

extension StripeExampleRoom {
    /// The demo users' Stripe cards.
    public static var demoUserCards: [DemoUserCard] {
        [
            DemoUserCard(
                user: DemoUserCard.alice, id: "business", ref: CardRef(id: StripeSimulator.Seed.activeCardID),
                displayName: "Business card (Stripe)", wallets: [.applePay]),
            DemoUserCard(
                user: DemoUserCard.bob, id: "new", ref: CardRef(id: StripeSimulator.Seed.inactiveCardID),
                displayName: "New card (Stripe)"),
        ]
    }
}
