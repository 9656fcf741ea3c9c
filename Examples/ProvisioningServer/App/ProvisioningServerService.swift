import Hummingbird
import Logging
import ServiceLifecycle

/// Runs a ``ProvisioningServer`` as a swift-service-lifecycle `Service`: it binds, serves until the service
/// group shuts down gracefully (in-flight requests finish, no new connections are taken), then returns.
///
/// ```swift
/// let service = ProvisioningServerService(server: server, host: "127.0.0.1", port: 8080)
/// let group = ServiceGroup(services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// `GET /health` answers 200 `{"status":"ok"}` while the server runs.
public struct ProvisioningServerService: Service {
    /// The routes and their dependencies.
    public let server: ProvisioningServer
    /// The address to bind; 127.0.0.1 by default, so that only this machine (or a local proxy) can connect.
    public let host: String
    /// The port to bind; 0 picks a free one, reported through `onServerRunning`.
    public let port: Int
    private let onServerRunning: @Sendable (_ port: Int) async -> Void

    /// - Parameters:
    ///   - server: the routes and their dependencies.
    ///   - host: the address to bind.
    ///   - port: the port to bind (0 for any free port).
    ///   - onServerRunning: called with the bound port once connections are accepted.
    public init(
        server: ProvisioningServer, host: String = "127.0.0.1", port: Int = 8080,
        onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) {
        self.server = server
        self.host = host
        self.port = port
        self.onServerRunning = onServerRunning
    }

    /// Serves until graceful shutdown or cancellation.
    public func run() async throws {
        let application = server.buildApplication(host: host, port: port, onServerRunning: onServerRunning)
        try await application.run()
        server.logger.info("provisioning server stopped")
    }
}
