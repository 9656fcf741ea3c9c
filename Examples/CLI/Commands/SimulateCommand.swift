import ArgumentParser
import CardGateway
import CardGatewaySimulation
import ExampleSupport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// `cardgateway simulate`: every registered provider simulator as a long-running server, for any language's tests.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Serve every provider simulator until interrupted.",
        discussion: """
            Prints one line per provider, `<kind> <baseURL>`, then `ready`. Point a client (ours, or the provider's \
            official library) at a base URL with the simulator's seed credentials (see the README). Every \
            simulator also answers the control path /__simulator/ (reset, clock, faults, journal). \
            With --write-config FILE it also writes a gateway configuration for these simulators, for the other \
            cardgateway commands.
            """
    )

    @Option(help: "Address to bind. Anything but loopback exposes the simulators to the network.") var host: String =
        "127.0.0.1"
    @Option(
        help:
            "First port: the simulators take consecutive ports from PORT, in the order listed. Default: ephemeral ports."
    ) var port: Int?
    @Option(
        name: .customLong("write-config"),
        help: "Write a gateway configuration for the running simulators to this file.", completion: .file())
    var writeConfig: String?

    func validate() throws {
        let count = EmbeddedSimulators().all.count
        if let port, !(1...(65536 - count)).contains(port) {
            throw ValidationError("--port must be between 1 and \(65536 - count) (\(count) consecutive ports are used)")
        }
    }

    func run() async throws {
        if !EndpointPolicy.isLoopback(host) {
            CLIOutput.progress(
                "warning: binding \(host): the simulators accept their well-known seed credentials from anyone who can reach them"
            )
        }
        let simulators = EmbeddedSimulators()
        let configPath = writeConfig
        let failure = FailureBox()
        let groupBox = Mutex<ServiceGroup?>(nil)
        let logger = Logger(label: "cardgateway.simulate", factory: { _ in SwiftLogNoOpLogHandler() })
        let service = SimulatorService(simulators: simulators.all, host: host, firstPort: port) { handles in
            do {
                if let configPath {
                    let data = try simulators.configurationJSON(handles: handles)
                    try data.write(to: URL(fileURLWithPath: configPath), options: .atomic)
                }
            } catch {
                failure.set("could not write \(configPath ?? "the configuration"): \(error.localizedDescription)")
                await groupBox.withLock { $0 }?.triggerGracefulShutdown()
                return
            }
            for handle in handles {
                CLIOutput.line("\(handle.kindName) \(handle.baseURL.absoluteString)")
            }
            CLIOutput.line("ready")
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [service], gracefulShutdownSignals: [.sigint, .sigterm], logger: logger)
        )
        groupBox.withLock { $0 = group }
        try await group.run()
        if let message = failure.message {
            CLIOutput.error(CardGatewayError(.invalidConfiguration, message))
            throw ExitCode(1)
        }
    }
}

/// A message set from the readiness callback.
final class FailureBox: Sendable {
    private let storage = Mutex<String?>(nil)
    func set(_ message: String) { storage.withLock { $0 = message } }
    var message: String? { storage.withLock { $0 } }
}
