import ArgumentParser
import CardGateway
import CardGatewayAsyncHTTPClient
import ExampleSupport
import Foundation
import Logging
import Metrics
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
            Without --config it starts the five embedded simulators and serves the demo users alice and bob (their \
            bearer tokens are in the README). With --config FILE (the gateway configuration) and --directory FILE \
            (users, tokens and cards) it serves real providers. Stops gracefully on SIGINT or SIGTERM.
            """
    )

    @Option(help: "The gateway configuration (JSON). Default: the embedded simulators.", completion: .file(extensions: ["json"]))
    var config: String?
    @Option(help: "The users, their bearer tokens and cards (JSON); required with --config.", completion: .file(extensions: ["json"]))
    var directory: String?
    @Option(help: "Address to bind.") var host: String = "127.0.0.1"
    @Option(help: "Port to bind (0: any free port).") var port: Int = 8080
    @Option(name: .customLong("stored-credentials-provider"), help: "The instance for /v1/credentials. Default: routed by operation.")
    var storedCredentialsProvider: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.") var logLevel: String = "info"

    func validate() throws {
        if (config == nil) != (directory == nil) { throw ValidationError("give --config and --directory together, or neither (embedded simulators)") }
        if !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535") }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical") }
    }

    func run() async throws {
        var logger = Logger(label: "provisioning-server", factory: { label in StreamLogHandler.standardError(label: label) })
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let route: RouteTarget = storedCredentialsProvider.map { .instance($0) } ?? .key(RouteKey())
        // The executable, unlike the library, bootstraps metrics: one Prometheus registry for Hummingbird's request
        // metrics and the gateway's, served at GET /metrics.
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(ProvisioningServer.prometheusFactory(registry: metrics))
        let serverConfiguration = ProvisioningServer.Configuration(storedCredentialRoute: route, metrics: metrics)
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
                configuration = try GatewayConfiguration.load(contentsOf: URL(fileURLWithPath: config), registry: ExampleRegistry.all)
            } catch let error as CardGatewayError where error.code == .invalidConfiguration {
                FileHandle.standardError.write(Data("\(ConfigurationError(problems: error.configurationProblems))\n".utf8))
                throw ExitCode(1)
            }
            // The configuration's store section: in memory, or PostgreSQL shared by every instance of the server.
            try await ConfiguredStores.with(configuration, logger: logger) { stores in
                try await serve(
                    configuration: configuration, stores: stores, directory: directory, logger: logger, serverConfiguration: serverConfiguration,
                    traceExport: traceExport
                )
            }
        } else {
            try await EmbeddedSimulators().run { running in
                for handle in running.handles {
                    let metadata: Logger.Metadata = ["kind": .string(handle.kindName), "baseURL": .string(handle.baseURL.absoluteString)]
                    logger.info("simulator", metadata: metadata)
                }
                let server = try DemoServer.make(running: running, logger: logger, configuration: serverConfiguration)
                logger.notice("demo users: alice and bob, with the bearer tokens listed in the README")
                try await serve(server, logger: logger, traceExport: traceExport)
            }
        }
    }

    func serve(
        configuration: GatewayConfiguration, stores: ConfiguredStores, directory: String, logger: Logger,
        serverConfiguration: ProvisioningServer.Configuration, traceExport: (any Service)?
    ) async throws {
        let server: ProvisioningServer
        do {
            let gateway = try stores.gateway(configuration: configuration, logger: logger)
            let directoryURL = URL(fileURLWithPath: directory)
            let accounts = try CardDirectoryFile.accounts(
                from: try CardDirectoryFile.read(directoryURL), secrets: SecretResolver(baseDirectory: directoryURL.deletingLastPathComponent())
            )
            // Only an instance named on the command line is checked: without one, stored credentials follow the
            // routes per request, and a configuration without any is a valid card-only deployment.
            let routeProblems = CardDirectoryFile.routeProblems(
                accounts, gateway: gateway, storedCredentialRoute: storedCredentialsProvider.map { .instance($0) }
            )
            guard routeProblems.isEmpty else { throw ConfigurationError(problems: routeProblems) }
            let users = InMemoryCardDirectory(accounts: accounts)
            server = ProvisioningServer(gateway: gateway, directory: users, configuration: serverConfiguration, logger: logger)
        } catch let error as ConfigurationError {
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
            FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
        }
        // A group shuts its services down last to first: the trace exporter, first, flushes after the server stops.
        let services: [any Service] = (traceExport.map { [$0] } ?? []) + [service]
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigint, .sigterm], logger: logger))
        try await group.run()
    }
}
