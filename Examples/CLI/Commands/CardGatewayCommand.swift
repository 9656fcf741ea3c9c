import ArgumentParser
import CardGateway
import ExampleSupport
import Foundation

/// `cardgateway`: the demo on the embedded simulators, the simulators on their own, and every gateway
/// operation over a configuration file.
public struct CardGatewayCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cardgateway",
        abstract: "Card push provisioning and stored credentials from several providers, behind one API.",
        discussion: """
            `cardgateway demo` runs every capability against embedded simulators (no credentials, no network). \
            `cardgateway simulate` serves the six simulators for use from any language.

            The other commands take a configuration file (--config) and print the normalised result as JSON on \
            stdout; on failure they print a JSON error on stderr and exit 2 (64 for a usage error).
            """,
        subcommands: [
            DemoCommand.self, SimulateCommand.self, ConfigCommand.self, RouteCommand.self, CardCommand.self,
            TokenCommand.self,
            ProvisionCommand.self, CredentialsCommand.self, WebhookCommand.self, AuthorizeCommand.self,
        ]
    )

    public init() {}
}

/// Picks the provider instance: by route flags, or by name.
struct TargetOptions: ParsableArguments {
    @Option(help: "Route by issuer.") var issuer: String?
    @Option(help: "Route by card program.") var program: String?
    @Option(help: "Route by BIN (the card's leading 6 to 11 digits).") var bin: String?
    @Option(help: "Route by country (ISO 3166-1 alpha-2).") var country: String?
    @Option(help: "Route by currency (ISO 4217 alpha-3).") var currency: String?
    @Option(help: "Route by tenant.") var tenant: String?
    @Option(name: .customLong("provider"), help: "Use this provider instance by name instead of routing.")
    var providerName: String?

    var routeKey: RouteKey {
        RouteKey(issuer: issuer, program: program, bin: bin, country: country, currency: currency, tenant: tenant)
    }

    var target: RouteTarget {
        if let providerName { return .instance(providerName) }
        return .key(routeKey)
    }
}

/// `--config FILE`.
struct ConfigOptions: ParsableArguments {
    @Option(
        name: .customLong("config"), help: "The gateway configuration (JSON).", completion: .file(extensions: ["json"]))
    var path: String

    func loadConfiguration() throws -> GatewayConfiguration {
        try GatewayConfiguration.load(contentsOf: URL(fileURLWithPath: path), registry: ExampleRegistry.all)
    }

    func gateway(credentialStore: (any CredentialReferenceStore)? = nil) throws -> CardGateway {
        try CardGateway(
            configuration: try loadConfiguration(), registry: ExampleRegistry.all,
            credentialStore: credentialStore ?? InMemoryCredentialReferenceStore()
        )
    }

    /// Runs `body` with a gateway over the configuration's stores (PostgreSQL when its `store` section says so; the
    /// pool then runs for the command). `credentialStore` (`--credential-store FILE`) replaces the configured one.
    func withGateway<Result: Sendable>(
        credentialStore: (any CredentialReferenceStore)? = nil, _ body: (CardGateway) async throws -> Result
    ) async throws -> Result {
        let configuration = try loadConfiguration()
        return try await ConfiguredStores.with(
            configuration, logger: OperationContext.noopLogger, credentialStore: credentialStore
        ) { stores in
            try await body(try stores.gateway(configuration: configuration))
        }
    }
}

/// `--credential-store FILE`: where stored-credential references live between commands.
struct CredentialStoreOptions: ParsableArguments {
    @Option(
        name: .customLong("credential-store"),
        help:
            "A JSON file that keeps stored-credential references between commands (verify saves, --reuse and charge read). Without it they last one command.",
        completion: .file(extensions: ["json"])
    )
    var path: String?

    var store: (any CredentialReferenceStore)? {
        path.map { FileCredentialReferenceStore(url: URL(fileURLWithPath: $0)) }
    }
}

/// Runs a command body, printing a JSON error on stderr and exiting non-zero when it fails.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CardGatewayError {
        CLIOutput.error(error)
        throw ExitCode(2)
    } catch let error as CLIUsageError {
        CLIOutput.error(CardGatewayError(.invalidRequest, error.message))
        throw ExitCode(64)
    }
}

struct CLIUsageError: Error {
    var message: String
}
