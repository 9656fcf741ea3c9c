import ArgumentParser
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayPostgres
import ExampleSupport
import Foundation
import Logging
import Metrics
import NIOCore
import NIOPosix
import Prometheus
import ProvisioningServerApp
import ServiceLifecycle

/// `provisioning-server`: the backend a mobile app talks to, on the embedded simulators by default.
@main
struct ProvisioningServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "provisioning-server",
        abstract: "Serve the provisioning API for a mobile app (see the README for the endpoints).",
        discussion: """
            Without --config it starts the embedded simulators and serves the demo users alice and bob (their \
            bearer tokens are in the README). With --config FILE (the gateway configuration) and --directory FILE \
            (users, tokens and cards) it serves real providers. Stops gracefully on SIGINT or SIGTERM.
            """
    )

    @Option(
        help: "The gateway configuration (JSON). Default: the embedded simulators.",
        completion: .file(extensions: ["json"]))
    var config: String?
    @Option(
        help: "The users, their bearer tokens and cards (JSON); required with --config.",
        completion: .file(extensions: ["json"]))
    var directory: String?
    @Option(help: "Address to bind.") var host: String = "127.0.0.1"
    @Option(help: "Port to bind (0: any free port).") var port: Int = 8080
    @Option(
        name: .customLong("stored-credentials-provider"),
        help: "The instance for /v1/credentials. Default: routed by operation.")
    var storedCredentialsProvider: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"
    @Option(
        name: .customLong("audit-log"),
        help:
            "Where the card details and PIN audit trail goes, one JSON line per attempt whatever --log-level says: - for standard error (default), or a file to append to.",
        completion: .file())
    var auditLog: String = "-"

    // Limits (see the README, "Running it in production").
    @Option(
        name: .customLong("read-timeout"),
        help:
            "Seconds to read one request, head and body, from its first byte (the first from the connection's opening; 0: no deadline)."
    )
    var readTimeout: Double = 10
    @Option(
        name: .customLong("idle-timeout"),
        help: "Seconds a connection may stay open with no request in progress (0: for ever).")
    var idleTimeout: Double = 60
    @Option(
        name: .customLong("max-connections"),
        help:
            "Connections open at once; past it a new one replaces the oldest that has sent no request, or is closed (0: no limit)."
    )
    var maxConnections: Int = 512
    @Option(name: .customLong("max-header-bytes"), help: "The largest request head, in bytes.") var maxHeaderBytes:
        Int = 16 * 1024
    @Option(name: .customLong("max-body-bytes"), help: "The largest API request body, in bytes (webhooks: 1 MiB).")
    var maxBodyBytes: Int = 256 * 1024
    @Option(
        name: .customLong("rate-limit-per-user"),
        help: "Provider calls a minute per authenticated user; cheap reads cost a quarter (0: off)."
    )
    var rateLimitPerUser: Int = 30
    @Option(name: .customLong("rate-limit-per-address"), help: "Requests to /v1 a minute per client address (0: off).")
    var rateLimitPerAddress: Int = 600
    @OptionGroup var cardReveal: CardRevealOptions
    @Option(
        name: .customLong("authorization-decider"),
        help:
            "Where POST /authorizations/{instance} asks for decisions: the normalised request is POSTed there as JSON within the instance's budget (https; http only on loopback). Without it the configuration's authorizationRules decide alone."
    )
    var authorizationDecider: String?

    @Option(
        name: .customLong("tasks-on"),
        help:
            "Where Swift concurrency runs the handlers: event-loops (NIO's, the ones that read the sockets: no thread hop between a socket and its handler) or swift-pool (Swift's own pool)."
    )
    var tasksOn: TaskThreads = .eventLoops

    // The embedded simulators' gateway (with --config, the file's instances say it).
    @Option(
        name: .customLong("max-concurrent-requests"),
        help:
            "Without --config: calls in flight per provider instance (default: the gateway's, 1024); with --config the file says it."
    )
    var maxConcurrentRequests: Int?
    @Option(
        name: .customLong("max-waiting-requests"),
        help:
            "Without --config: calls waiting for a place per provider instance (default: the gateway's, 1024); with --config the file says it."
    )
    var maxWaitingRequests: Int?

    // Authentication: the directory's tokens unless --jwks-url is given.
    @Option(
        name: .customLong("jwks-url"),
        help: "Verify bearer JWTs against this JWKS (https; http only on loopback) instead of the directory's tokens.")
    var jwksURL: String?
    @Option(name: .customLong("jwt-issuer"), help: "The iss the JWTs must carry (with --jwks-url).") var jwtIssuer:
        String?
    @Option(name: .customLong("jwt-audience"), help: "An aud the JWTs must carry (with --jwks-url).") var jwtAudience:
        String?
    @Option(name: .customLong("jwt-user-claim"), help: "The claim naming the directory's user.") var jwtUserClaim:
        String = "sub"
    @Option(name: .customLong("jwt-algorithms"), help: "Accepted JWT algorithms, comma-separated (asymmetric only).")
    var jwtAlgorithms: String = "RS256,ES256"

    // TLS.
    @Option(
        name: .customLong("tls-certificate"),
        help: "Serve HTTPS with this certificate chain (PEM, leaf first); with --tls-key.", completion: .file())
    var tlsCertificate: String?
    @Option(name: .customLong("tls-key"), help: "The private key of --tls-certificate (PEM).", completion: .file())
    var tlsKey: String?

    func validate() throws {
        if (config == nil) != (directory == nil) {
            throw ValidationError("give --config and --directory together, or neither (embedded simulators)")
        }
        if !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535") }
        if Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        if readTimeout < 0 || idleTimeout < 0 {
            throw ValidationError("--read-timeout and --idle-timeout must be 0 or more seconds")
        }
        if maxConnections < 0 || rateLimitPerUser < 0 || rateLimitPerAddress < 0 {
            throw ValidationError(
                "--max-connections, --rate-limit-per-user and --rate-limit-per-address must be 0 or more")
        }
        if maxHeaderBytes < 1024 || maxBodyBytes < 1024 {
            throw ValidationError("--max-header-bytes and --max-body-bytes must be at least 1024")
        }
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw ValidationError("give --tls-certificate and --tls-key together")
        }
        if config != nil, maxConcurrentRequests != nil || maxWaitingRequests != nil {
            throw ValidationError(
                "--max-concurrent-requests and --max-waiting-requests are for the embedded simulators; with --config, set them in the file"
            )
        }
        if let maxConcurrentRequests, !(1...10_000).contains(maxConcurrentRequests) {
            throw ValidationError("--max-concurrent-requests must be from 1 to 10000")
        }
        if let maxWaitingRequests, !(0...100_000).contains(maxWaitingRequests) {
            throw ValidationError("--max-waiting-requests must be from 0 to 100000")
        }
        try cardReveal.validate(jwt: jwksURL != nil)
        if let authorizationDecider {
            guard let url = URL(string: authorizationDecider) else {
                throw ValidationError("--authorization-decider is not a URL")
            }
            if let problem = HTTPAuthorizationDecider.problem(with: url) {
                throw ValidationError("--authorization-decider: \(problem)")
            }
        }
        if jwksURL != nil {
            if jwtIssuer == nil || jwtAudience == nil {
                throw ValidationError("--jwks-url needs --jwt-issuer and --jwt-audience")
            }
            if let problems = try jwtConfiguration()?.problems, !problems.isEmpty {
                throw ValidationError(problems.joined(separator: "; "))
            }
        } else if jwtIssuer != nil || jwtAudience != nil {
            throw ValidationError("--jwt-issuer and --jwt-audience need --jwks-url")
        }
    }

    /// The JWT authentication the flags ask for; nil without --jwks-url.
    func jwtConfiguration() throws -> JWTBearerAuthenticator.Configuration? {
        guard let jwksURL, let jwtIssuer, let jwtAudience else { return nil }
        guard let url = URL(string: jwksURL) else { throw ValidationError("--jwks-url is not a URL") }
        let algorithms = Set(
            jwtAlgorithms.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        return JWTBearerAuthenticator.Configuration(
            issuer: jwtIssuer, audience: jwtAudience, jwksURL: url, userClaim: jwtUserClaim, algorithms: algorithms)
    }

    /// The server's limits and TLS, from the flags.
    func serverConfiguration(
        route: RouteTarget, metrics: PrometheusCollectorRegistry
    ) throws -> ProvisioningServer.Configuration {
        func seconds(_ value: Double) -> Duration? { value > 0 ? .milliseconds(Int64(value * 1000)) : nil }
        var configuration = ProvisioningServer.Configuration(
            storedCredentialRoute: route, maxRequestBodyBytes: maxBodyBytes, metrics: metrics,
            requestReadTimeout: seconds(readTimeout),
            idleTimeout: seconds(idleTimeout), maxConnections: maxConnections > 0 ? maxConnections : nil,
            maxHeaderBytes: maxHeaderBytes,
            rateLimitPerUser: rateLimitPerUser, rateLimitPerAddress: rateLimitPerAddress
        )
        configuration.cardReveal = cardReveal.policy
        if let authorizationDecider, let url = URL(string: authorizationDecider) {
            configuration.authorizationDecider = try HTTPAuthorizationDecider(url: url)
        }
        if let tlsCertificate, let tlsKey {
            configuration.tls = try ProvisioningServer.tlsConfiguration(
                certificateChainPEM: tlsCertificate, privateKeyPEM: tlsKey)
        }
        return configuration
    }

    /// The directory's tokens, or bearer JWTs when --jwks-url is given.
    func authenticator(directory: any CardDirectory, logger: Logger) throws -> (any Authenticator)? {
        guard let configuration = try jwtConfiguration() else { return nil }
        return try JWTBearerAuthenticator(
            configuration: configuration, directory: directory, fetch: JWTBearerAuthenticator.httpFetch(),
            logger: logger)
    }

    /// The audit trail's logger: JSON lines on standard error, or appended to the --audit-log file.
    func auditLogger() throws -> Logger {
        guard auditLog != "-" else { return AuditLog.logger(writingTo: .standardError) }
        do {
            return try AuditLog.logger(appendingTo: auditLog)
        } catch {
            FileHandle.standardError.write(Data("cannot open --audit-log \(auditLog) for appending\n".utf8))
            throw ExitCode(1)
        }
    }

    func run() async throws {
        // Swift concurrency's jobs run on NIO's event loops, where Hummingbird reads the requests and AsyncHTTPClient
        // the providers' answers, instead of a pool of threads of its own: a call no longer hops between the two at
        // each await. A card read costs 263 µs of CPU this way against 363 on Swift's pool, and 4,027 calls a second at
        // 64 connections against 3,298 (docs/LOAD.md, "Cost of a call"). SwiftNIO's documented opt-in, sound as it
        // requires: once, on the main thread (`run()` itself runs on Swift's pool), before the server starts a task;
        // it only changes where jobs enqueued from then on run, and touches no memory of ours.
        var onEventLoops = false
        if tasksOn == .eventLoops {
            onEventLoops = await MainActor.run {
                NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
            }
        }
        var logger = Logger(
            label: "provisioning-server", factory: { label in StreamLogHandler.standardError(label: label) })
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        if tasksOn == .eventLoops && !onEventLoops {
            logger.warning("Swift tasks stay on Swift's pool: SwiftNIO could not put them on its event loops")
        } else {
            logger.notice("Swift tasks run on \(onEventLoops ? "NIO's event loops" : "Swift's pool")")
        }
        let auditLogger = try self.auditLogger()
        let route: RouteTarget = storedCredentialsProvider.map { .instance($0) } ?? .key(RouteKey())
        // The executable, unlike the library, bootstraps metrics: one Prometheus registry for Hummingbird's request
        // metrics and the gateway's, served at GET /metrics.
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(ProvisioningServer.prometheusFactory(registry: metrics))
        let serverConfiguration: ProvisioningServer.Configuration
        do {
            serverConfiguration = try self.serverConfiguration(route: route, metrics: metrics)
        } catch {
            // NIOSSL's errors name the file and the failure, never the key's bytes.
            FileHandle.standardError.write(Data("cannot read --tls-certificate or --tls-key: \(error)\n".utf8))
            throw ExitCode(1)
        }
        // Traces: only when the OpenTelemetry environment variables ask for OTLP export (see TraceExport), and before
        // the gateway is built, so that its spans and Hummingbird's TracingMiddleware use the OpenTelemetry tracer.
        let traceExport: (any Service)?
        do {
            traceExport = try TraceExport.bootstrapIfRequested(logger: logger)
        } catch {
            FileHandle.standardError.write(Data("cannot export traces over OTLP: \(error)\n".utf8))
            throw ExitCode(1)
        }

        if let config, let directory {
            let configuration: GatewayConfiguration
            do {
                configuration = try GatewayConfiguration.load(
                    contentsOf: URL(fileURLWithPath: config), registry: ExampleRegistry.all)
            } catch let error as CardGatewayError where error.code == .invalidConfiguration {
                FileHandle.standardError.write(
                    Data("\(ConfigurationError(problems: error.configurationProblems))\n".utf8))
                throw ExitCode(1)
            }
            // The configuration's store section: in memory, or PostgreSQL shared by every instance of the server.
            try await ConfiguredStores.with(configuration, logger: logger) { stores in
                try await serve(
                    configuration: configuration, stores: stores, directory: directory, logger: logger,
                    auditLogger: auditLogger, serverConfiguration: serverConfiguration,
                    traceExport: traceExport
                )
            }
        } else {
            try await EmbeddedSimulators().run { running in
                for handle in running.handles {
                    let metadata: Logger.Metadata = [
                        "kind": .string(handle.kindName), "baseURL": .string(handle.baseURL.absoluteString),
                    ]
                    // Notice, so that a run at --log-level notice (no access log: scripts/load-server) still says where they are.
                    logger.notice("simulator", metadata: metadata)
                }
                let server: ProvisioningServer
                do {
                    if maxConcurrentRequests == nil, maxWaitingRequests == nil {
                        let demo = try DemoServer.make(
                            running: running, logger: logger, configuration: serverConfiguration
                        ) { directory in
                            try authenticator(directory: directory, logger: logger)
                        }
                        // The demo server, with the audit trail on its own channel.
                        server = ProvisioningServer(
                            gateway: demo.gateway, directory: demo.directory, configuration: demo.configuration,
                            authenticator: demo.authenticator, logger: logger, auditLogger: auditLogger
                        )
                    } else {
                        // The demo server, with every instance's bulkhead as the flags say (scripts/load-server).
                        var gatewayConfiguration = try running.configuration()
                        for name in gatewayConfiguration.providers.keys {
                            if let maxConcurrentRequests {
                                gatewayConfiguration.providers[name]?.maxConcurrentRequests = maxConcurrentRequests
                            }
                            if let maxWaitingRequests {
                                gatewayConfiguration.providers[name]?.maxWaitingRequests = maxWaitingRequests
                            }
                        }
                        let gateway = try CardGateway(
                            configuration: gatewayConfiguration, registry: ExampleRegistry.all,
                            transport: AsyncHTTPClientTransport(), logger: logger
                        )
                        let directory = InMemoryCardDirectory(accounts: DemoUsers.accounts)
                        server = ProvisioningServer(
                            gateway: gateway, directory: directory, configuration: serverConfiguration,
                            authenticator: try authenticator(directory: directory, logger: logger), logger: logger,
                            auditLogger: auditLogger
                        )
                    }
                } catch let error as JWTBearerAuthenticator.ConfigurationError {
                    FileHandle.standardError.write(Data("\(error)\n".utf8))
                    throw ExitCode(1)
                }
                logger.notice("demo users: alice and bob, with the bearer tokens listed in the README")
                try await serve(server, logger: logger, traceExport: traceExport)
            }
        }
    }

    func serve(
        configuration: GatewayConfiguration, stores: ConfiguredStores, directory: String, logger: Logger,
        auditLogger: Logger, serverConfiguration: ProvisioningServer.Configuration, traceExport: (any Service)?
    ) async throws {
        let server: ProvisioningServer
        do {
            let gateway = try stores.gateway(configuration: configuration, logger: logger)
            let directoryURL = URL(fileURLWithPath: directory)
            let accounts = try CardDirectoryFile.accounts(
                from: try CardDirectoryFile.read(directoryURL),
                secrets: SecretResolver(baseDirectory: directoryURL.deletingLastPathComponent())
            )
            // Only an instance named on the command line is checked: without one, stored credentials follow the
            // routes per request, and a configuration without any is a valid card-only deployment.
            let routeProblems = CardDirectoryFile.routeProblems(
                accounts, gateway: gateway, storedCredentialRoute: storedCredentialsProvider.map { .instance($0) }
            )
            guard routeProblems.isEmpty else { throw ConfigurationError(problems: routeProblems) }
            let users = InMemoryCardDirectory(accounts: accounts)
            // On PostgreSQL the reveal rate limit counts in the database, so that every instance counts one user's calls.
            let revealAllowance = stores.postgres.map { postgres in
                RevealAllowance { userID, perMinute in
                    try await postgres.rateLimits.spend(
                        scope: PostgresRateLimits.cardRevealScope, key: userID, perMinute: perMinute)
                }
            }
            server = ProvisioningServer(
                gateway: gateway, directory: users, configuration: serverConfiguration,
                authenticator: try authenticator(directory: users, logger: logger),
                logger: logger, auditLogger: auditLogger, revealAllowance: revealAllowance
            )
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        } catch let error as JWTBearerAuthenticator.ConfigurationError {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        } catch let error as CardGatewayError where error.code == .invalidConfiguration {
            FileHandle.standardError.write(Data("\(ConfigurationError(problems: error.configurationProblems))\n".utf8))
            throw ExitCode(1)
        }
        try await serve(server, logger: logger, traceExport: traceExport)
    }

    func serve(_ server: ProvisioningServer, logger: Logger, traceExport: (any Service)?) async throws {
        let host = self.host
        let service = ProvisioningServerService(server: server, host: host, port: port) { port in
            FileHandle.standardOutput.write(
                Data("listening on \(server.configuration.tls == nil ? "http" : "https")://\(host):\(port)\n".utf8))
        }
        // A group shuts its services down last to first: the trace exporter, first, flushes after the server stops.
        let services: [any Service] = (traceExport.map { [$0] } ?? []) + [service]
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigint, .sigterm], logger: logger))
        try await group.run()
    }
}

/// Where the server's Swift tasks run (`--tasks-on`).
enum TaskThreads: String, ExpressibleByArgument, CaseIterable {
    case eventLoops = "event-loops"
    case swiftPool = "swift-pool"
}
