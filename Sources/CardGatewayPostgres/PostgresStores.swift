import CardGateway
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import ServiceLifecycle

/// The gateway's shared state on PostgreSQL: stored-credential references, the operation ledger and the
/// provisioning journal, over one postgres-nio connection pool.
///
/// ```swift
/// let stores = PostgresStores(configuration: try PostgresStoreConfiguration(configuration.store), logger: logger)
/// let gateway = try CardGateway(configuration: configuration, registry: registry, credentialStore: stores.credentialReferences)
///     .using(ledger: stores.operationLedger, journal: stores.provisioningJournal)
/// // run `stores` in a ServiceGroup (it runs the pool and purges expired ledger records), then:
/// try await stores.migrate()
/// ```
///
/// Or scoped: `try await PostgresStores.withStores(configuration) { stores in … }`.
public final class PostgresStores: Service, Sendable {
    public let configuration: PostgresStoreConfiguration
    /// The connection pool; it works only while ``run()`` runs.
    public let client: PostgresClient
    public let credentialReferences: PostgresCredentialReferenceStore
    public let operationLedger: PostgresOperationLedger
    public let provisioningJournal: PostgresProvisioningJournal
    /// Rate limits every instance counts in together (the provisioning server's card details and PIN limit).
    public let rateLimits: PostgresRateLimits
    let database: PostgresDatabase

    public init(
        configuration: PostgresStoreConfiguration,
        logger: Logger = Logger(label: "cardgateway.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        var clientConfiguration = PostgresClient.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password?.revealedValue, database: configuration.database,
            tls: {
                switch configuration.tls {
                case .disable: return .disable
                case .prefer: return .prefer(.makeClientConfiguration())
                case .require: return .require(.makeClientConfiguration())
                }
            }()
        )
        clientConfiguration.options.connectTimeout = configuration.connectTimeout
        clientConfiguration.options.maximumConnections = configuration.maxConnections
        // The server gives up on a statement (or a lock) that outlives the store's timeout, too.
        let milliseconds = Int(configuration.timeout.milliseconds)
        clientConfiguration.options.additionalStartupParameters = [
            ("statement_timeout", String(milliseconds)), ("lock_timeout", String(milliseconds)),
            ("application_name", "cardgateway"),
        ]
        self.configuration = configuration
        self.client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
        var database = PostgresDatabase(
            client: client, timeout: configuration.timeout, endpoint: configuration.endpoint, logger: logger)
        database.diagnose = { [configuration] in await Self.diagnose(configuration, logger: logger) }
        database.meter = PoolMeter(maximumConnections: configuration.maxConnections)
        self.database = database
        self.credentialReferences = PostgresCredentialReferenceStore(database: database)
        self.operationLedger = PostgresOperationLedger(
            database: database, retention: configuration.ledgerRetention, clock: configuration.ledgerClock)
        self.provisioningJournal = PostgresProvisioningJournal(database: database)
        self.rateLimits = PostgresRateLimits(database: database)
    }

    /// What the pool has done for these stores so far: leases, waits for a connection, peaks.
    public var poolStatistics: PostgresPoolStatistics { database.meter.statistics }

    /// Starts ``poolStatistics`` afresh.
    public func resetPoolStatistics() { database.meter.reset() }

    /// One direct connection attempt: the error that keeps the pool from connecting, or nil when none does.
    static func diagnose(_ configuration: PostgresStoreConfiguration, logger: Logger) async -> CardGatewayError? {
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch configuration.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            return CardGatewayError(
                .invalidConfiguration, "TLS to the PostgreSQL store at \(configuration.endpoint) cannot be set up")
        }
        var connectionConfiguration = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password?.revealedValue,
            database: configuration.database, tls: tls
        )
        connectionConfiguration.options.connectTimeout = .milliseconds(
            min(configuration.connectTimeout, .seconds(3)).milliseconds)
        do {
            let connection = try await PostgresConnection.connect(
                configuration: connectionConfiguration, id: 0, logger: logger)
            try? await connection.close()
            return nil
        } catch {
            return PostgresDatabase.error(
                error, what: "connect", endpoint: configuration.endpoint, timeout: configuration.connectTimeout)
        }
    }

    /// Runs the connection pool, and deletes expired ledger records and idle rate limit buckets every
    /// ``PostgresStoreConfiguration/purgeInterval``, until cancelled or shut down gracefully.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.client.run() }
            group.addTask {
                await cancelWhenGracefulShutdown {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: self.configuration.purgeInterval)
                        if Task.isCancelled { break }
                        _ = try? await self.operationLedger.purgeExpired()
                        _ = try? await self.rateLimits.purgeIdle(
                            before: Date().addingTimeInterval(-PostgresRateLimits.idleRetention.timeInterval))
                    }
                }
            }
        }
    }

    /// Applies the schema migrations the database lacks (see ``PostgresMigrations``); returns their versions. Safe to
    /// run from every instance at start-up, at the same time. Needs ``run()`` running.
    @discardableResult
    public func migrate() async throws -> [Int] {
        let logger = database.logger
        // Migrations may wait for another instance's lock: allow them longer than one statement.
        let lockWait = database.timeout * 6
        let migrating = PostgresDatabase(
            client: client, timeout: lockWait + database.timeout, endpoint: database.endpoint, logger: logger)
        return try await migrating.runOnPool(
            "migrate the schema",
            { client in
                try await PostgresMigrations.run(on: client, lockWait: lockWait, logger: logger)
            })
    }

    /// The versions the database has applied.
    public func appliedMigrations() async throws -> [Int] {
        try await database.run("read the schema version") { client in
            var versions: [Int] = []
            for try await version in try await client.query(
                "SELECT version FROM cardgateway_schema_migrations ORDER BY version"
            ).decode(Int.self) {
                versions.append(version)
            }
            return versions
        }
    }

    /// Runs `body` with stores whose pool runs for its duration, after migrating (unless `migrate` is false).
    public static func withStores<Result: Sendable>(
        _ configuration: PostgresStoreConfiguration, logger: Logger? = nil, migrate: Bool = true,
        _ body: (PostgresStores) async throws -> Result
    ) async throws -> Result {
        let stores =
            logger.map { PostgresStores(configuration: configuration, logger: $0) }
            ?? PostgresStores(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await stores.client.run() }
            defer { group.cancelAll() }
            if migrate { try await stores.migrate() }
            return try await body(stores)
        }
    }
}
