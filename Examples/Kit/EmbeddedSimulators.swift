import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation
import HTTPTypes
import Logging

/// The provider simulators the example programs run in-process (one per room), and the gateway configuration that
/// points one instance of each adapter at them.
///
/// ```swift
/// try await EmbeddedSimulators().run { running in
///     let gateway = try running.gateway()
///     let card = try await gateway.card(CardRef(id: "ic_1SimActiveEligible000000"), via: .key(RouteKey(issuer: "stripe-us")))
/// }
/// ```
public struct EmbeddedSimulators: Sendable {
    /// The provider instance names in the built-in configuration: each room adds its own
    /// (`EmbeddedSimulators.Instance.stripe`).
    public enum Instance: Sendable {}

    /// The route keys of the built-in configuration: each room routed by issuer adds its own.
    public enum Issuer: Sendable {}

    /// The rooms, in the order their simulators are started and listed.
    public let rooms: [any ExampleRoom]
    /// The rooms' adapters.
    public let registry: ProviderRegistry

    /// Simulators of these rooms.
    public init(rooms: [any ExampleRoom]) {
        self.rooms = rooms
        self.registry = ProviderRegistry(rooms.map { type(of: $0).factory })
    }

    /// Every room's simulator, in the rooms' order.
    public var all: [any ProviderSimulator] { rooms.map { $0.simulator } }

    /// The room of this type.
    public func room<Room: ExampleRoom>(_ type: Room.Type) -> Room? {
        rooms.lazy.compactMap { $0 as? Room }.first
    }

    /// The simulator of a room these simulators must hold (the typed accessors the rooms add).
    public func simulator<Room: ExampleRoom>(of type: Room.Type) -> Room.Simulator {
        guard let room = room(type) else { preconditionFailure("no \(Room.kind) room among the embedded simulators") }
        return room.simulator
    }

    /// The room whose instance is named `instance`.
    public func room(instance: String) -> (any ExampleRoom)? {
        rooms.first { type(of: $0).instance == instance }
    }

    /// Runs the simulators on ephemeral loopback ports for the duration of `body`, then stops them.
    public func run<R: Sendable>(
        host: String = "127.0.0.1", logger: Logger? = nil, _ body: (RunningSimulators) async throws -> R
    ) async throws -> R {
        try await withSimulators(all, host: host, logger: logger) { handles in
            try await body(RunningSimulators(simulators: self, handles: handles))
        }
    }

    /// Whether the adapter of `kind` answers real-time authorizations.
    public func answersAuthorizations(_ kind: String) -> Bool {
        registry.factory(for: ProviderKind(kind))?.descriptor.capabilities.contains(.authorizations) == true
    }

    /// The gateway configuration (the JSON document `GatewayConfiguration.load` reads) for simulators listening
    /// at `handles`: one instance per room with the simulators' own credentials as `literal:` references,
    /// and routes by operation, issuer and program.
    ///
    /// `literal:` secrets are for simulators and tests only; a real configuration names `env:` or `file:`
    /// references instead.
    public func configurationJSON(handles: [SimulatorHandle]) throws -> Data {
        var providers: [String: Any] = [:]
        var routes: [[String: Any]] = []
        for room in rooms {
            let kind = type(of: room).kind
            guard let handle = handles.first(where: { $0.kindName == kind }) else {
                throw CardGatewayError(.invalidConfiguration, "no running simulator for \(kind)")
            }
            var instance = room.instanceConfiguration(baseURL: handle.baseURL.absoluteString)
            // Real-time authorizations (issue 47): the credentials the simulator's network sends, and a budget well
            // inside every provider's deadline, for each adapter that answers them.
            let authorizationCredentials = room.authorizationCredentials
            if !authorizationCredentials.isEmpty, answersAuthorizations(kind),
                var credentials = instance["credentials"] as? [String: String]
            {
                for (name, value) in authorizationCredentials { credentials[name] = "literal:" + value }
                instance["credentials"] = credentials
                instance["authorizations"] = ["standIn": "decline", "budgetMilliseconds": 1000]
            }
            providers[type(of: room).instance] = instance
            routes += type(of: room).routes
        }
        // Routes by operation first: they pick an instance whatever the key's issuer or program.
        let byOperation = routes.filter { ($0["when"] as? [String: Any])?["operation"] != nil }
        let byKey = routes.filter { ($0["when"] as? [String: Any])?["operation"] == nil }
        return try JSONSerialization.data(
            withJSONObject: [
                "providers": providers, "routes": byOperation + byKey,
                "authorizationRules": [
                    ["name": "no gambling", "merchantCategories": ["7995"], "reason": "merchantCategoryBlocked"]
                ],
            ],
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        )
    }

    /// One signed webhook delivery from the room of `instance`, as the provider would POST it; nil when the provider
    /// sends none the gateway verifies.
    public func sampleWebhook(instance: String, now: Date = Date()) throws -> WebhookDelivery? {
        guard let signed = try room(instance: instance)?.sampleWebhook(now: now) else { return nil }
        var headers = HTTPFields()
        for (name, value) in signed.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            headers.append(HTTPField(name: fieldName, value: value))
        }
        return WebhookDelivery(headers: headers, body: signed.body)
    }
}

/// The embedded simulators while they listen: their handles, and the gateway configured for them.
public struct RunningSimulators: Sendable {
    public let simulators: EmbeddedSimulators
    /// In the order of ``EmbeddedSimulators/all``.
    public let handles: [SimulatorHandle]

    public init(simulators: EmbeddedSimulators, handles: [SimulatorHandle]) {
        self.simulators = simulators
        self.handles = handles
    }

    /// The running simulator of a provider kind (`"paysafe"`, `"adyen"`, `"stripe"`…).
    public func handle(_ kind: String) -> SimulatorHandle? { handles.first { $0.kindName == kind } }

    /// ``EmbeddedSimulators/configurationJSON(handles:)`` for these handles.
    public func configurationJSON() throws -> Data { try simulators.configurationJSON(handles: handles) }

    /// The configuration, loaded and validated the way any configuration file is.
    public func configuration() throws -> GatewayConfiguration {
        try GatewayConfiguration.load(from: try configurationJSON(), registry: simulators.registry)
    }

    /// A gateway over the simulators.
    public func gateway(
        transport: any HTTPTransport = AsyncHTTPClientTransport(), logger: Logger = OperationContext.noopLogger,
        credentialStore: any CredentialReferenceStore = InMemoryCredentialReferenceStore(),
        observability: GatewayObservability = .bootstrapped
    ) throws -> CardGateway {
        try CardGateway(
            configuration: try configuration(), registry: simulators.registry, transport: transport, logger: logger,
            credentialStore: credentialStore,
            observability: observability
        )
    }
}
