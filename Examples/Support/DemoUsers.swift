import AdyenSimulator
import BridgeSimulator
import CardGateway
import Logging
import MarqetaSimulator
import PaysafeSimulator
import ProvisioningServerApp
import StripeSimulator

/// The provisioning server's users when it runs on the embedded simulators: two app users whose cards sit at
/// different providers. The tokens are well-known demo values, printed in the README; never use them elsewhere.
public enum DemoUsers: Sendable {
    public static let aliceToken = "demo-token-alice-7f3a9c51"
    public static let bobToken = "demo-token-bob-c41d2e88"

    public static var accounts: [InMemoryCardDirectory.Account] {
        typealias Issuer = EmbeddedSimulators.Issuer
        let alice = InMemoryCardDirectory.Account(
            user: AppUser(id: "alice", displayName: "Alice"), token: Secret(aliceToken),
            cards: [
                OwnedCard(
                    id: "everyday",
                    ref: CardRef(id: PaysafeSimulator.Seed.activeCardID, customer: PaysafeSimulator.Seed.euCustomer),
                    route: .key(RouteKey(issuer: Issuer.paysafe)), displayName: "Everyday card (Paysafe)"
                ),
                OwnedCard(
                    id: "frozen",
                    ref: CardRef(id: PaysafeSimulator.Seed.lockedCardID, customer: PaysafeSimulator.Seed.euCustomer),
                    route: .key(RouteKey(issuer: Issuer.paysafe)), displayName: "Locked card (Paysafe)"
                ),
                OwnedCard(
                    id: "travel", ref: CardRef(id: AdyenSimulator.Seed.activeVisaID),
                    route: .key(RouteKey(issuer: Issuer.adyen)), displayName: "Travel card (Adyen)"),
                OwnedCard(
                    id: "business", ref: CardRef(id: StripeSimulator.Seed.activeCardID),
                    route: .key(RouteKey(issuer: Issuer.stripe)),
                    displayName: "Business card (Stripe)", wallets: [.applePay]
                ),
                OwnedCard(
                    id: "crypto",
                    ref: CardRef(id: BridgeSimulator.Seed.activeVisa, customer: BridgeSimulator.Seed.customerID),
                    route: .key(RouteKey(issuer: Issuer.bridge)), displayName: "Stablecoin card (Bridge)"
                ),
            ]
        )
        let bob = InMemoryCardDirectory.Account(
            user: AppUser(id: "bob", displayName: "Bob"), token: Secret(bobToken),
            cards: [
                OwnedCard(
                    id: "crypto",
                    ref: CardRef(
                        id: BridgeSimulator.Seed.otherCustomerActiveVisa, customer: BridgeSimulator.Seed.otherCustomerID
                    ),
                    route: .key(RouteKey(issuer: Issuer.bridge)), displayName: "Stablecoin card (Bridge)"
                ),
                OwnedCard(
                    id: "new", ref: CardRef(id: StripeSimulator.Seed.inactiveCardID),
                    route: .key(RouteKey(issuer: Issuer.stripe)), displayName: "New card (Stripe)"),
                OwnedCard(
                    id: "rewards",
                    ref: CardRef(id: MarqetaSimulator.Seed.activeCard, customer: MarqetaSimulator.Seed.userToken),
                    route: .key(RouteKey(issuer: Issuer.marqeta)), displayName: "Rewards card (Marqeta)",
                    wallets: [.applePay, .googlePay, .samsungPay]
                ),
            ]
        )
        return [alice, bob]
    }
}

/// The provisioning server as `provisioning-server` runs it without `--config`: on the embedded simulators,
/// with ``DemoUsers``, and stored credentials routed by operation (to Trust Payments).
public enum DemoServer: Sendable {
    public static func make(
        running: RunningSimulators, logger: Logger = OperationContext.noopLogger,
        configuration: ProvisioningServer.Configuration = ProvisioningServer.Configuration(
            storedCredentialRoute: .key(RouteKey())),
        authenticator: (any CardDirectory) throws -> (any Authenticator)? = { _ in nil }
    ) throws -> ProvisioningServer {
        let directory = InMemoryCardDirectory(accounts: DemoUsers.accounts)
        return ProvisioningServer(
            gateway: try running.gateway(logger: logger), directory: directory, configuration: configuration,
            authenticator: try authenticator(directory), logger: logger
        )
    }
}
