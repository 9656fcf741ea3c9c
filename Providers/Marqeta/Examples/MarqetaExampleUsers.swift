import CardGateway
import CardGatewayExampleKit
import MarqetaSimulator

extension MarqetaExampleRoom {
    /// The demo users' Marqeta cards.
    public static var demoUserCards: [DemoUserCard] {
        [
            DemoUserCard(
                user: DemoUserCard.bob, id: "rewards",
                ref: CardRef(id: MarqetaSimulator.Seed.activeCard, customer: MarqetaSimulator.Seed.userToken),
                displayName: "Rewards card (Marqeta)", wallets: [.applePay, .googlePay, .samsungPay])
        ]
    }
}
