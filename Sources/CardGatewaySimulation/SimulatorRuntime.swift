import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A running simulator: where it listens and the kit objects attached to it.
public struct SimulatorHandle: Sendable {
    /// The simulator's ``ProviderSimulator/kindName``.
    public let kindName: String
    /// `http://<host>:<port>` followed by the simulator's ``ProviderSimulator/basePath``; point the adapter here.
    public let baseURL: URL
    /// The port the simulator listens on.
    public let port: Int
    /// The host the simulator listens on.
    public let host: String
    /// `http://<host>:<port>` without the base path; the control path (`/__simulator/...`) lives here.
    public let rootURL: URL
    /// The requests this simulator received.
    public let journal: RequestJournal
    /// The simulator's pending faults.
    public let faults: FaultInjector
    /// The simulator itself (for its state and ``ProviderSimulator/clock``).
    public let simulator: any ProviderSimulator

    /// Creates a handle; the kit does this once a server listens.
    public init(
        simulator: any ProviderSimulator, host: String, port: Int, journal: RequestJournal, faults: FaultInjector
    ) {
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let root = "http://\(hostPart):\(port)"
        self.kindName = simulator.kindName
        self.simulator = simulator
        self.host = host
        self.port = port
        self.journal = journal
        self.faults = faults
        // Built from a bindable host and a port, the root is always a valid URL; a base path that is not URL-safe
        // (against the protocol's contract) falls back to the root rather than failing.
        var components = URLComponents()
        components.scheme = "http"
        components.host = hostPart
        components.port = port
        self.rootURL = URL(string: root) ?? components.url ?? URL(fileURLWithPath: "/")
        self.baseURL = URL(string: root + simulator.basePath) ?? self.rootURL
    }

    /// The URL of `path` below ``baseURL``, e.g. `url("/v1/payment_intents")`.
    /// - Parameter path: A path starting with `/`, optionally followed by a query.
    public func url(_ path: String) -> URL {
        URL(string: self.baseURL.absoluteString + path) ?? self.baseURL
    }
}

/// Errors the kit's runners throw.
public enum SimulatorError: Error, Sendable, Equatable {
    /// The servers stopped before every simulator was listening (for example because the run was cancelled).
    case stoppedBeforeReady
}

/// Runs one simulator for the duration of `body`, then shuts its server down gracefully.
///
/// ```swift
/// try await withSimulator(EchoSimulator()) { sim in
///     sim.faults.inject(FaultRule(action: .status(503, retryAfterSeconds: 1, message: nil)))
///     let client = MyAdapter(baseURL: sim.baseURL)
///     ...
///     #expect(sim.journal.entries(pathContains: "/payments").count == 2)
/// }
/// ```
/// The server gets a fresh ``RequestJournal`` and ``FaultInjector``; the simulator's own state is not reset. Shutdown
/// waits for in-flight requests for at most 5 seconds, then cancels them. Can be called any number of times in one
/// process, also concurrently.
/// - Parameters:
///   - simulator: The simulator to run.
///   - host: Address to bind (default `127.0.0.1`).
///   - port: Port to bind; 0 (default) picks a free ephemeral port.
///   - logger: Logger for the server; `nil` (default) discards all server logging. Request bodies are never logged.
///   - body: Runs while the simulator listens; receives its handle.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, or the server's error if it cannot bind.
@discardableResult
public func withSimulator<R: Sendable>(
    _ simulator: some ProviderSimulator,
    host: String = "127.0.0.1",
    port: Int = 0,
    logger: Logger? = nil,
    _ body: (SimulatorHandle) async throws -> R
) async throws -> R {
    let cluster = SimulatorCluster(simulators: [simulator], host: host, ports: [port], logger: logger)
    return try await cluster.run { handles in
        try await body(handles[0])
    }
}

/// Runs several simulators at once, each on its own ephemeral port, for the duration of `body`, then shuts them down.
///
/// Handles are passed in the order of `simulators`. See ``withSimulator(_:host:port:logger:_:)`` for details.
/// - Parameters:
///   - simulators: The simulators to run (an empty array runs `body` with no handles).
///   - host: Address to bind (default `127.0.0.1`).
///   - logger: Logger for the servers; `nil` (default) discards all server logging.
///   - body: Runs while all simulators listen.
/// - Returns: What `body` returns.
@discardableResult
public func withSimulators<R: Sendable>(
    _ simulators: [any ProviderSimulator],
    host: String = "127.0.0.1",
    logger: Logger? = nil,
    _ body: ([SimulatorHandle]) async throws -> R
) async throws -> R {
    let cluster = SimulatorCluster(
        simulators: simulators,
        host: host,
        ports: Array(repeating: 0, count: simulators.count),
        logger: logger
    )
    return try await cluster.run(body)
}

/// Runs simulators until cancelled or gracefully shut down, for long-running programs (a CLI `simulate` command, a
/// server): add it to a swift-service-lifecycle `ServiceGroup`.
///
/// ```swift
/// let service = SimulatorService(simulators: [StripeSimulator(), AdyenSimulator()], firstPort: 9000) { handles in
///     for handle in handles { logger.info("\(handle.kindName) at \(handle.baseURL)") }
/// }
/// try await ServiceGroup(services: [service], gracefulShutdownSignals: [.sigint, .sigterm], logger: logger).run()
/// ```
/// Every ``run()`` starts fresh servers with fresh journals and fault injectors.
public struct SimulatorService: Service {
    /// The simulators, in port order.
    public let simulators: [any ProviderSimulator]
    /// Address to bind.
    public let host: String
    /// First port (`nil`: ephemeral ports).
    public let firstPort: Int?
    private let logger: Logger?
    private let onReady: @Sendable ([SimulatorHandle]) async -> Void

    /// Creates the service.
    /// - Parameters:
    ///   - simulators: The simulators to run.
    ///   - host: Address to bind (default `127.0.0.1`).
    ///   - firstPort: `nil` (default) = ephemeral ports; `N` = ports `N`, `N+1`, ... in array order.
    ///   - logger: Logger for the servers; `nil` (default) discards all server logging.
    ///   - onReady: Called once, with the handles in array order, when every simulator listens. It runs concurrently
    ///     with the servers (so it may send requests to them) and is cancelled when the service stops.
    public init(
        simulators: [any ProviderSimulator],
        host: String = "127.0.0.1",
        firstPort: Int? = nil,
        logger: Logger? = nil,
        onReady: @escaping @Sendable ([SimulatorHandle]) async -> Void
    ) {
        self.simulators = simulators
        self.host = host
        self.firstPort = firstPort
        self.logger = logger
        self.onReady = onReady
    }

    /// Runs the simulators until the task is cancelled or a graceful shutdown is triggered (by the enclosing
    /// `ServiceGroup`). With no simulators, calls `onReady([])` and waits for shutdown.
    /// - Throws: The servers' error, e.g. when a port is already in use.
    public func run() async throws {
        let ports = self.simulators.indices.map { index in self.firstPort.map { $0 + index } ?? 0 }
        let cluster = SimulatorCluster(simulators: self.simulators, host: self.host, ports: ports, logger: self.logger)
        try await cluster.serve(onReady: self.onReady)
    }
}

/// The servers for a set of simulators, and the logic to run them.
struct SimulatorCluster: Sendable {
    typealias SimulatorApplication = Application<RouterResponder<SimulatorContext>>

    private struct Member: Sendable {
        var simulator: any ProviderSimulator
        var journal: RequestJournal
        var faults: FaultInjector
    }

    private let members: [Member]
    private let applications: [SimulatorApplication]
    private let readiness: Readiness
    private let host: String
    private let logger: Logger

    /// How long a graceful shutdown may wait for in-flight requests before they are cancelled.
    static let maximumGracefulShutdownDuration: Duration = .seconds(5)

    init(simulators: [any ProviderSimulator], host: String, ports: [Int], logger: Logger?) {
        let logger = logger ?? Logger(label: "CardGatewaySimulation", factory: { _ in SwiftLogNoOpLogHandler() })
        let readiness = Readiness(count: simulators.count)
        var members: [Member] = []
        var applications: [SimulatorApplication] = []
        for (index, simulator) in simulators.enumerated() {
            let member = Member(simulator: simulator, journal: RequestJournal(), faults: FaultInjector())
            let router = Router(context: SimulatorContext.self)
            router.add(
                middleware: SimulatorMiddleware(simulator: simulator, journal: member.journal, faults: member.faults))
            simulator.registerRoutes(on: router)
            let requestedPort = ports[index]
            var appLogger = logger
            appLogger[metadataKey: "simulator"] = .string(simulator.kindName)
            applications.append(
                Application(
                    router: router,
                    // A backlog of 4,096 (Hummingbird's default is 256): a load run opens 1,024 connections at once,
                    // and an overflowing listen queue (TcpExtListenOverflows) turned into SYN cookies and clusters of
                    // failed connections (load/trustpayments/1024, docs/LOAD.md). The kernel caps it at somaxconn.
                    configuration: ApplicationConfiguration(
                        address: .hostname(host, port: requestedPort),
                        serverName: nil,
                        backlog: 4_096
                    ),
                    onServerRunning: { channel in
                        readiness.report(index: index, port: channel.localAddress?.port ?? requestedPort)
                    },
                    logger: appLogger
                )
            )
            members.append(member)
        }
        self.members = members
        self.applications = applications
        self.readiness = readiness
        self.host = host
        self.logger = logger
    }

    private func makeServiceGroup() -> ServiceGroup {
        var configuration = ServiceGroupConfiguration(
            services: self.applications.enumerated().map { index, application in
                ServiceGroupConfiguration.ServiceConfiguration(
                    service: application,
                    serviceName: "simulator-\(self.members[index].simulator.kindName)"
                )
            },
            gracefulShutdownSignals: [],
            cancellationSignals: [],
            logger: self.logger
        )
        configuration.maximumGracefulShutdownDuration = Self.maximumGracefulShutdownDuration
        return ServiceGroup(configuration: configuration)
    }

    private func handles(ports: [Int]) -> [SimulatorHandle] {
        zip(self.members, ports).map { member, port in
            SimulatorHandle(
                simulator: member.simulator,
                host: self.host,
                port: port,
                journal: member.journal,
                faults: member.faults
            )
        }
    }

    /// Runs the servers, calls `body` once all listen, then shuts the servers down gracefully.
    func run<R: Sendable>(_ body: ([SimulatorHandle]) async throws -> R) async throws -> R {
        guard !self.applications.isEmpty else {
            return try await body([])
        }
        let group = self.makeServiceGroup()
        let readiness = self.readiness
        return try await withThrowingTaskGroup(of: Void.self, returning: R.self) { tasks in
            tasks.addTask {
                defer { readiness.finish() }
                try await group.run()
            }
            guard let ports = await readiness.wait() else {
                // The servers stopped before listening: surface their error (e.g. port in use).
                try await tasks.waitForAll()
                throw SimulatorError.stoppedBeforeReady
            }
            let result: R
            do {
                result = try await body(self.handles(ports: ports))
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        }
    }

    /// Runs the servers until cancellation or graceful shutdown, calling `onReady` once all listen.
    func serve(onReady: @escaping @Sendable ([SimulatorHandle]) async -> Void) async throws {
        guard !self.applications.isEmpty else {
            await onReady([])
            try? await gracefulShutdown()
            return
        }
        let group = self.makeServiceGroup()
        let readiness = self.readiness
        let cluster = self
        try await withThrowingTaskGroup(of: Bool.self) { tasks in
            tasks.addTask {
                defer { readiness.finish() }
                try await group.run()
                return true
            }
            tasks.addTask {
                if let ports = await readiness.wait() {
                    await onReady(cluster.handles(ports: ports))
                }
                return false
            }
            // Wait for the servers; `onReady` finishing early is fine, but it must not outlive them.
            while let serversFinished = try await tasks.next() {
                if serversFinished {
                    tasks.cancelAll()
                }
            }
        }
    }
}

/// Collects the listening ports of a cluster and reports them once all are known.
final class Readiness: Sendable {
    private struct State {
        var ports: [Int?]
        var delivered = false
    }

    private let state: Mutex<State>
    private let stream: AsyncStream<[Int]>
    private let continuation: AsyncStream<[Int]>.Continuation

    init(count: Int) {
        self.state = Mutex(State(ports: Array(repeating: nil, count: count)))
        (self.stream, self.continuation) = AsyncStream.makeStream(of: [Int].self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Records that server `index` listens on `port`; delivers the ports when it was the last one.
    func report(index: Int, port: Int) {
        let complete: [Int]? = self.state.withLock { state in
            state.ports[index] = port
            guard !state.delivered else { return nil }
            let ports = state.ports.compactMap { $0 }
            guard ports.count == state.ports.count else { return nil }
            state.delivered = true
            return ports
        }
        if let complete {
            self.continuation.yield(complete)
            self.continuation.finish()
        }
    }

    /// Ends waiting: called when the servers stop.
    func finish() {
        self.continuation.finish()
    }

    /// The ports once every server listens, or `nil` if the servers stopped first or the task was cancelled.
    func wait() async -> [Int]? {
        for await ports in self.stream {
            return ports
        }
        return nil
    }
}
