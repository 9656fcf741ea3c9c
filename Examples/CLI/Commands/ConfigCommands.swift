import ArgumentParser
import CardGateway
import ExampleSupport
import Foundation

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Check a configuration file.", subcommands: [Check.self, Capabilities.self])

    struct Capabilities: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "For each configured instance: its kind, what it can do, the operations it serves and the wallets it provisions."
        )
        @OptionGroup var config: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let configuration = try config.loadConfiguration()
                try CLIOutput.json(Manifest.entries(configuration, registry: ExampleRegistry.all))
            }
        }
    }

    /// One instance's capability manifest, as `config capabilities` prints it.
    struct Manifest: Encodable {
        var instance: String
        var kind: String
        var capabilities: [String]
        var operations: [String]
        var wallets: [String: String]

        static func entries(_ configuration: GatewayConfiguration, registry: ProviderRegistry) -> [Manifest] {
            configuration.providers.keys.sorted().compactMap { name in
                guard let instance = configuration.providers[name],
                    let descriptor = registry.factory(for: instance.kind)?.descriptor
                else { return nil }
                return Manifest(
                    instance: name, kind: instance.kind.name,
                    capabilities: Capability.allCases.filter(descriptor.capabilities.contains).map(\.rawValue),
                    operations: GatewayOperation.allCases.filter(descriptor.supports).map(\.rawValue),
                    wallets: Dictionary(
                        uniqueKeysWithValues: descriptor.provisioningFlows.map { ($0.key.rawValue, $0.value.rawValue) })
                )
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report every problem in the file, each with its JSON path; exit 0 only if it is valid.")
        @OptionGroup var config: ConfigOptions

        func run() async throws {
            let configuration: GatewayConfiguration
            do {
                configuration = try GatewayConfiguration.load(
                    contentsOf: URL(fileURLWithPath: config.path), registry: ExampleRegistry.all)
            } catch let error as CardGatewayError where error.code == .invalidConfiguration {
                try CLIOutput.json(
                    CheckResult(valid: false, problems: error.configurationProblems, providers: [], routes: 0))
                throw ExitCode(1)
            }
            // What only the adapters can tell (a live key in a sandbox instance, an option out of range).
            let problems = CardGateway.problems(in: configuration, registry: ExampleRegistry.all)
            try CLIOutput.json(
                CheckResult(
                    valid: problems.isEmpty, problems: problems, providers: configuration.providers.keys.sorted(),
                    routes: configuration.routes.count
                ))
            if !problems.isEmpty { throw ExitCode(1) }
        }

        struct CheckResult: Encodable {
            var valid: Bool
            var problems: [ConfigurationProblem]
            var providers: [String]
            var routes: Int
        }
    }
}

struct RouteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route", abstract: "Explain routing decisions.", subcommands: [Explain.self])

    struct Explain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the route a key takes, and why every earlier route was skipped.")
        @OptionGroup var config: ConfigOptions
        @OptionGroup var target: TargetOptions
        @Option(help: "Route by wallet (applePay, googlePay, samsungPay).") var wallet: String?
        @Option(help: "Route by operation (card, provision, charge, …).") var operation: String?

        func run() async throws {
            try await reportingErrors {
                let configuration = try config.loadConfiguration()
                var key = target.routeKey
                if let wallet {
                    guard let parsed = Wallet(parsing: wallet) else {
                        throw CLIUsageError(
                            message: "unknown wallet \"\(wallet)\"; expected applePay, googlePay or samsungPay")
                    }
                    key.wallet = parsed
                }
                if let operation {
                    guard let parsed = GatewayOperation(rawValue: operation) else {
                        throw CLIUsageError(
                            message:
                                "unknown operation \"\(operation)\"; expected one of \(GatewayOperation.allCases.map(\.rawValue).joined(separator: ", "))"
                        )
                    }
                    key.operation = parsed
                }
                let explanation = Router(routes: configuration.routes).explain(key)
                try CLIOutput.json(explanation)
                if explanation.match == nil { throw ExitCode(1) }
            }
        }
    }
}
