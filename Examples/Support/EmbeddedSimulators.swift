import CardGateway
import CardGatewaySimulation

extension EmbeddedSimulators {
    /// Fresh simulators of every room in ``ExampleRooms/all``, holding their documented seed data, each on the real
    /// clock.
    public init() {
        self.init(rooms: ExampleRooms.all.map { $0.init() })
    }

    /// Whether the example registry's adapter of `kind` answers real-time authorizations.
    public static func answersAuthorizations(_ kind: String) -> Bool {
        ExampleRegistry.all.factory(for: ProviderKind(kind))?.descriptor.capabilities.contains(.authorizations) == true
    }
}
