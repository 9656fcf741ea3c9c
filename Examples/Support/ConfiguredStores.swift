import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayPostgres
import Foundation
import Logging

/// The stores a configuration's `store` section names, for the example programs: in memory by default, or
/// PostgreSQL (`{"store": {"kind": "postgres", "url": "env:DATABASE_URL"}}`), shared by every instance of the program.
public struct ConfiguredStores: Sendable {
    public let credentialStore: any CredentialReferenceStore
    public let ledger: any OperationLedger
    public let journal: any ProvisioningJournal
    /// The PostgreSQL stores, when the configuration names them.
    public let postgres: PostgresStores?

    /// Runs `body` with the configured stores. For PostgreSQL the connection pool runs for the duration of `body`, and
    /// the schema is migrated first (safe when several instances start at once).
    ///
    /// - Parameter credentialStore: used instead of the configured store's credential references (the CLI's
    ///   `--credential-store FILE`).
    public static func with<Result: Sendable>(
        _ configuration: GatewayConfiguration, logger: Logger, credentialStore: (any CredentialReferenceStore)? = nil,
        _ body: (ConfiguredStores) async throws -> Result
    ) async throws -> Result {
        switch configuration.store.kind {
        case .postgres:
            let postgresConfiguration = try PostgresStoreConfiguration(configuration.store)
            logger.info("stores on PostgreSQL", metadata: ["database": .string(postgresConfiguration.endpoint)])
            return try await PostgresStores.withStores(postgresConfiguration, logger: logger) { postgres in
                try await body(
                    ConfiguredStores(
                        credentialStore: credentialStore ?? postgres.credentialReferences,
                        ledger: postgres.operationLedger,
                        journal: postgres.provisioningJournal, postgres: postgres
                    )
                )
            }
        default:
            return try await body(
                ConfiguredStores(
                    credentialStore: credentialStore ?? InMemoryCredentialReferenceStore(),
                    ledger: InMemoryOperationLedger(retention: configuration.store.ledgerRetention),
                    journal: InMemoryProvisioningJournal(),
                    postgres: nil
                )
            )
        }
    }

    /// A gateway over these stores.
    public func gateway(
        configuration: GatewayConfiguration, registry: ProviderRegistry = ExampleRegistry.all,
        transport: any HTTPTransport = AsyncHTTPClientTransport(),
        logger: Logger = OperationContext.noopLogger
    ) throws -> CardGateway {
        try CardGateway(
            configuration: configuration, registry: registry, transport: transport, logger: logger,
            credentialStore: credentialStore
        )
        .using(ledger: ledger, journal: journal)
    }
}
