import Logging
import PostgresNIO

/// One versioned change to the schema. Versions only grow; a released migration is never edited.
public struct PostgresMigration: Sendable {
    public let version: Int
    public let name: String
    let statements: [String]
}

/// The schema, versioned. Run by ``PostgresStores/migrate()`` in one transaction under a PostgreSQL advisory lock,
/// so several instances starting at once apply each migration exactly once; running it again does nothing.
public enum PostgresMigrations {
    /// The advisory lock key: "CardGate" as a big-endian 64-bit integer.
    public static let lockKey: Int64 = 4_855_287_648_301_970_533

    public static let all: [PostgresMigration] = [
        PostgresMigration(
            version: 1, name: "credential references",
            statements: [
                """
                CREATE TABLE cardgateway_credential_references (
                    reference text PRIMARY KEY,
                    provider_instance text,
                    customer text,
                    masked_pan text NOT NULL,
                    brand text,
                    scheme text NOT NULL,
                    consent_at timestamptz,
                    created_at timestamptz NOT NULL,
                    last_used_at timestamptz,
                    saved_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX cardgateway_credential_references_customer ON cardgateway_credential_references (customer, created_at)",
            ]),
        PostgresMigration(
            version: 2, name: "operation ledger",
            statements: [
                """
                CREATE TABLE cardgateway_operation_ledger (
                    idempotency_key text PRIMARY KEY,
                    operation text NOT NULL,
                    provider_instance text NOT NULL,
                    fingerprint text NOT NULL,
                    state text NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed', 'unknown')),
                    owner uuid NOT NULL,
                    outcome text,
                    failure text,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    lease_until timestamptz NOT NULL,
                    expires_at timestamptz NOT NULL
                )
                """,
                "CREATE INDEX cardgateway_operation_ledger_expires ON cardgateway_operation_ledger (expires_at)",
            ]),
        PostgresMigration(
            version: 3, name: "provisioning journal",
            statements: [
                """
                CREATE TABLE cardgateway_provisioning_journal (
                    id bigserial PRIMARY KEY,
                    at timestamptz NOT NULL,
                    operation text NOT NULL,
                    provider_instance text NOT NULL,
                    card text,
                    wallet text,
                    flow text,
                    outcome text NOT NULL,
                    latency_ms integer NOT NULL,
                    request_id text,
                    provider_request_id text
                )
                """,
                "CREATE INDEX cardgateway_provisioning_journal_card ON cardgateway_provisioning_journal (card, id)",
                "CREATE INDEX cardgateway_provisioning_journal_at ON cardgateway_provisioning_journal (at)",
            ]),
        PostgresMigration(
            version: 4, name: "rate limits",
            statements: [
                """
                CREATE TABLE cardgateway_rate_limits (
                    scope text NOT NULL,
                    key text NOT NULL,
                    tokens double precision NOT NULL,
                    granted boolean NOT NULL,
                    updated_at timestamptz NOT NULL,
                    PRIMARY KEY (scope, key)
                )
                """,
                "CREATE INDEX cardgateway_rate_limits_updated ON cardgateway_rate_limits (updated_at)",
            ]),
    ]

    /// Applies the migrations the database lacks; returns their versions. `lockWait` bounds the wait for another
    /// instance that is migrating (the connection's own lock and statement timeouts are shorter).
    static func run(on client: PostgresClient, lockWait: Duration, logger: Logger) async throws -> [Int] {
        // The common case, every migration applied, takes no lock.
        if try await applied(on: client).isSuperset(of: all.map(\.version)) { return [] }
        let milliseconds = lockWait.milliseconds
        return try await client.withTransaction(logger: logger) { connection -> [Int] in
            try await connection.query(
                PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = \(milliseconds)"), logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(milliseconds)"), logger: logger)
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS cardgateway_schema_migrations (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                logger: logger
            )
            var applied = Set<Int>()
            for try await version in try await connection.query(
                "SELECT version FROM cardgateway_schema_migrations", logger: logger
            ).decode(Int.self) {
                applied.insert(version)
            }
            var done: [Int] = []
            for migration in all where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO cardgateway_schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger
                )
                logger.info(
                    "applied migration",
                    metadata: ["version": .stringConvertible(migration.version), "name": .string(migration.name)])
                done.append(migration.version)
            }
            return done
        }
    }

    /// The versions applied, without a lock; empty when the migrations table does not exist yet.
    static func applied(on client: PostgresClient) async throws -> Set<Int> {
        var exists = false
        for try await found in try await client.query("SELECT to_regclass('cardgateway_schema_migrations') IS NOT NULL")
            .decode(Bool.self)
        {
            exists = found
        }
        guard exists else { return [] }
        var versions = Set<Int>()
        for try await version in try await client.query("SELECT version FROM cardgateway_schema_migrations").decode(
            Int.self)
        { versions.insert(version) }
        return versions
    }
}
