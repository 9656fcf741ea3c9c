import CardGateway
import Foundation
import PostgresNIO

/// The operation ledger in `cardgateway_operation_ledger`, shared by every instance: one row per idempotency key.
///
/// A claim is one `INSERT … ON CONFLICT` round trip (a row past its expiry is replaced in the same statement), and
/// one more to read a key someone holds; recording the outcome is one `UPDATE`. Leases and expiry use the database's clock, so instances whose clocks
/// disagree still agree on them. Rows hold the key, operation, instance, a SHA-256 fingerprint of the parameters
/// and a small outcome (never card data).
public struct PostgresOperationLedger: OperationLedger {
    let database: PostgresDatabase
    /// How long records are kept.
    public let retention: Duration

    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    typealias Row = (String, String, String, String, String, String?, String?, Date, Date, Date, Bool)

    public func claim(_ intent: LedgerIntent) async throws -> LedgerClaim {
        let retention = retention
        return try await database.run("claim an idempotency key") { client in
            for _ in 0..<5 {
                let owner = UUID()
                let inserted = try await client.query(
                    """
                    INSERT INTO cardgateway_operation_ledger
                        (idempotency_key, operation, provider_instance, fingerprint, state, owner, created_at, updated_at, lease_until, expires_at)
                    VALUES (\(intent.key), \(intent.operation.rawValue), \(intent.instance), \(intent.fingerprint), 'pending', \(owner), now(), now(),
                            now() + make_interval(secs => \(intent.lease.seconds)), now() + make_interval(secs => \(retention.seconds)))
                    ON CONFLICT (idempotency_key) DO UPDATE SET
                        operation = EXCLUDED.operation, provider_instance = EXCLUDED.provider_instance, fingerprint = EXCLUDED.fingerprint,
                        state = 'pending', owner = EXCLUDED.owner, outcome = NULL, failure = NULL, created_at = now(), updated_at = now(),
                        lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at
                    WHERE cardgateway_operation_ledger.expires_at <= now()
                    RETURNING owner
                    """
                ).count()
                if inserted == 1 { return .claimed(owner: owner) }
                // Someone holds the key: read it, turning a claim whose lease ran out into unknown in the same statement.
                if let record = try await Self.read(intent.key, client: client, expireLease: true) { return .existing(record) }
                // Deleted in between (released, forgotten or purged): claim again.
            }
            throw CardGatewayError(.conflict, "the idempotency key changed hands too often to be claimed; repeat later", isRetryable: true)
        }
    }

    static func read(_ key: String, client: PostgresClient, expireLease: Bool = false) async throws -> LedgerRecord? {
        let query: PostgresQuery
        if expireLease {
            // The SELECT sees the row as it was before the UPDATE in the same statement, hence the CASE.
            query = """
                WITH lapsed AS (
                    UPDATE cardgateway_operation_ledger SET state = 'unknown', updated_at = now()
                    WHERE idempotency_key = \(key) AND state = 'pending' AND lease_until <= now()
                    RETURNING idempotency_key
                )
                SELECT idempotency_key, operation, provider_instance, fingerprint,
                       CASE WHEN EXISTS (SELECT 1 FROM lapsed) THEN 'unknown' ELSE state END,
                       outcome, failure, created_at, updated_at, expires_at, expires_at <= now()
                FROM cardgateway_operation_ledger WHERE idempotency_key = \(key)
                """
        } else {
            query = """
                SELECT idempotency_key, operation, provider_instance, fingerprint, state, outcome, failure, created_at, updated_at, expires_at,
                       expires_at <= now()
                FROM cardgateway_operation_ledger WHERE idempotency_key = \(key)
                """
        }
        var rows: [Row] = []
        for try await row in try await client.query(query).decode(Row.self) { rows.append(row) }
        for row in rows {
            if row.10 { return nil }
            return LedgerRecord(
                key: row.0, operation: row.1, instance: row.2, fingerprint: row.3, state: LedgerState(rawValue: row.4) ?? .unknown,
                outcome: row.5.map { Data($0.utf8) }, failure: try row.6.map { try decoder.decode(RecordedFailure.self, from: Data($0.utf8)) },
                created: row.7, updated: row.8, expires: row.9
            )
        }
        return nil
    }

    /// The state, outcome and failure columns for an outcome.
    static func columns(_ outcome: LedgerOutcome) throws -> (state: String, outcome: String?, failure: String?) {
        switch outcome {
        case .succeeded(let data): return (LedgerState.succeeded.rawValue, String(decoding: data, as: UTF8.self), nil)
        case .failed(let failure): return (LedgerState.failed.rawValue, nil, String(decoding: try encoder.encode(failure), as: UTF8.self))
        case .unknown: return (LedgerState.unknown.rawValue, nil, nil)
        }
    }

    public func record(_ outcome: LedgerOutcome, key: String, owner: UUID) async throws {
        let columns = try Self.columns(outcome)
        try await database.run("record an operation's outcome") { client in
            try await client.perform(
                """
                UPDATE cardgateway_operation_ledger SET state = \(columns.state), outcome = \(columns.outcome), failure = \(columns.failure), updated_at = now()
                WHERE idempotency_key = \(key) AND owner = \(owner) AND state IN ('pending', 'unknown')
                """
            )
        }
    }

    public func release(key: String, owner: UUID) async throws {
        try await database.run("release an idempotency key") { client in
            try await client.perform(
                "DELETE FROM cardgateway_operation_ledger WHERE idempotency_key = \(key) AND owner = \(owner) AND state = 'pending'"
            )
        }
    }

    public func record(key: String) async throws -> LedgerRecord? {
        try await database.run("read a ledger record") { client in try await Self.read(key, client: client) }
    }

    public func reconcile(key: String, to resolution: LedgerReconciliation) async throws {
        let columns: (state: String, outcome: String?, failure: String?)?
        switch resolution {
        case .forget: columns = nil
        case .succeeded(let data): columns = try Self.columns(.succeeded(data))
        case .failed(let failure): columns = try Self.columns(.failed(failure))
        }
        try await database.run("reconcile a ledger record") { client in
            if let columns {
                try await client.perform(
                    """
                    UPDATE cardgateway_operation_ledger SET state = \(columns.state), outcome = \(columns.outcome), failure = \(columns.failure), updated_at = now()
                    WHERE idempotency_key = \(key)
                    """
                )
            } else {
                try await client.perform("DELETE FROM cardgateway_operation_ledger WHERE idempotency_key = \(key)")
            }
        }
    }

    @discardableResult
    public func purgeExpired() async throws -> Int {
        try await database.run("purge expired ledger records") { client in
            try await client.query("DELETE FROM cardgateway_operation_ledger WHERE expires_at <= now() RETURNING 1").count()
        }
    }
}
