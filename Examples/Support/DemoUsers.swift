import CardGateway
import Logging
import ProvisioningServerApp

/// The provisioning server's users when it runs on the embedded simulators: two app users whose cards sit at
/// different providers. The tokens are well-known demo values, printed in the README; never use them elsewhere.
public enum DemoUsers: Sendable {
    public static let aliceToken = "demo-token-alice-7f3a9c51"
    public static let bobToken = "demo-token-bob-c41d2e88"

    /// Alice's and Bob's cards: each room's ``ExampleRoom/demoUserCards``, in the rooms' order.
    public static var accounts: [InMemoryCardDirectory.Account] {
        let users = [
            (AppUser(id: DemoUserCard.alice, displayName: "Alice"), aliceToken),
            (AppUser(id: DemoUserCard.bob, displayName: "Bob"), bobToken),
        ]
        let cards = ExampleRooms.all.flatMap { room in room.demoUserCards.map { (room.via, $0) } }
        return users.map { user, token in
            InMemoryCardDirectory.Account(
                user: user, token: Secret(token),
                cards: cards.filter { $0.1.user == user.id }.map { via, card in
                    OwnedCard(
                        id: card.id, ref: card.ref, route: via, displayName: card.displayName, wallets: card.wallets)
                })
        }
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
