import CardGateway
import Foundation
import PostgresNIO

/// The operation ledger in `cardgateway_operation_ledger`, shared by every instance: one row per idempotency key.
///
/// A claim is one round trip: one `INSERT … ON CONFLICT DO UPDATE … RETURNING` that either inserts the claim, or
/// replaces a record past its expiry, or turns a claim whose lease ran out into `unknown`, or leaves the record as it
/// is, and in every case returns the row as it now stands (a repeat gets the recorded outcome from the same statement).
/// Recording the outcome is one `UPDATE`. Leases and expiry use the database's clock (``PostgresLedgerClock``), so
/// instances whose clocks disagree still agree on them. Rows hold the key, operation, instance, a SHA-256 fingerprint
/// of the parameters and a small outcome (never card data).
public struct PostgresOperationLedger: OperationLedger {
    let database: PostgresDatabase
    /// How long records are kept after their claim's lease ends (a record expires at claim + lease + retention).
    public let retention: Duration
    /// The clock of leases and expiry: the database's `now()`, advanced only by tests.
    public let clock: PostgresLedgerClock

    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    typealias Row = (String, String, String, String, String, String?, String?, Date, Date, Date, Bool)
    typealias ClaimRow = (String, String, String, String, String, UUID, String?, String?, Date, Date, Date)

    public func claim(_ intent: LedgerIntent) async throws -> LedgerClaim {
        let retention = retention
        let now = clock.sql
        return try await database.run("claim an idempotency key") { session in
            let owner = UUID()
            // Why one statement is enough: ON CONFLICT DO UPDATE locks the row that holds the key (waiting for an
            // insert or update in flight to commit) and evaluates SET against its latest committed version, so the
            // row it returns is the one every other claimer sees; a row deleted meanwhile (released, forgotten,
            // purged) makes PostgreSQL retry the insert. The update always happens (a HOT update of the same row) so
            // that RETURNING always gives the row: a `WHERE` on DO UPDATE would return nothing for a record that is
            // kept, and a second statement (the old way) would have to read it. Whoever's owner comes back holds it.
            let rows = try await session.query(
                """
                INSERT INTO cardgateway_operation_ledger AS l
                    (idempotency_key, operation, provider_instance, fingerprint, state, owner, created_at, updated_at, lease_until, expires_at)
                VALUES (\(intent.key), \(intent.operation.rawValue), \(intent.instance), \(intent.fingerprint), 'pending', \(owner), \(unescaped: now), \(unescaped: now),
                        \(unescaped: now) + make_interval(secs => \(intent.lease.timeInterval)), \(unescaped: now) + make_interval(secs => \((intent.lease + retention).timeInterval)))
                ON CONFLICT (idempotency_key) DO UPDATE SET
                    operation = CASE WHEN l.expires_at <= \(unescaped: now) THEN EXCLUDED.operation ELSE l.operation END,
                    provider_instance = CASE WHEN l.expires_at <= \(unescaped: now) THEN EXCLUDED.provider_instance ELSE l.provider_instance END,
                    fingerprint = CASE WHEN l.expires_at <= \(unescaped: now) THEN EXCLUDED.fingerprint ELSE l.fingerprint END,
                    owner = CASE WHEN l.expires_at <= \(unescaped: now) THEN EXCLUDED.owner ELSE l.owner END,
                    outcome = CASE WHEN l.expires_at <= \(unescaped: now) THEN NULL ELSE l.outcome END,
                    failure = CASE WHEN l.expires_at <= \(unescaped: now) THEN NULL ELSE l.failure END,
                    created_at = CASE WHEN l.expires_at <= \(unescaped: now) THEN EXCLUDED.created_at ELSE l.created_at END,
                    lease_until = CASE WHEN l.expires_at <= \(unescaped: now) THEN EXCLUDED.lease_until ELSE l.lease_until END,
                    state = CASE WHEN l.expires_at <= \(unescaped: now) THEN 'pending'
                                 WHEN l.state = 'pending' AND l.lease_until <= \(unescaped: now) THEN 'unknown' ELSE l.state END,
                    updated_at = CASE WHEN l.expires_at <= \(unescaped: now) OR (l.state = 'pending' AND l.lease_until <= \(unescaped: now))
                                      THEN EXCLUDED.updated_at ELSE l.updated_at END,
                    expires_at = CASE WHEN l.expires_at <= \(unescaped: now) THEN EXCLUDED.expires_at ELSE l.expires_at END
                RETURNING idempotency_key, operation, provider_instance, fingerprint, state, owner, outcome, failure, created_at, updated_at, expires_at
                """
            ).decode(ClaimRow.self)
            var claim: LedgerClaim?
            for try await row in rows {
                if row.5 == owner {
                    claim = .claimed(owner: owner)
                } else {
                    claim = .existing(
                        LedgerRecord(
                            key: row.0, operation: row.1, instance: row.2, fingerprint: row.3,
                            state: LedgerState(rawValue: row.4) ?? .unknown,
                            outcome: row.6.map { Data($0.utf8) },
                            failure: try row.7.map {
                                try Self.decoder.decode(RecordedFailure.self, from: Data($0.utf8))
                            },
                            created: row.8, updated: row.9, expires: row.10
                        )
                    )
                }
            }
            guard let claim else {
                throw CardGatewayError(
                    .providerUnavailable, "the operation ledger returned no row for a claim; nothing was sent",
                    isRetryable: true)
            }
            return claim
        }
    }

    static func read(_ key: String, session: PostgresSession, now: String) async throws -> LedgerRecord? {
        let query: PostgresQuery = """
            SELECT idempotency_key, operation, provider_instance, fingerprint, state, outcome, failure, created_at, updated_at, expires_at,
                   expires_at <= \(unescaped: now)
            FROM cardgateway_operation_ledger WHERE idempotency_key = \(key)
            """
        var rows: [Row] = []
        for try await row in try await session.query(query).decode(Row.self) { rows.append(row) }
        for row in rows {
            if row.10 { return nil }
            return LedgerRecord(
                key: row.0, operation: row.1, instance: row.2, fingerprint: row.3,
                state: LedgerState(rawValue: row.4) ?? .unknown,
                outcome: row.5.map { Data($0.utf8) },
                failure: try row.6.map { try decoder.decode(RecordedFailure.self, from: Data($0.utf8)) },
                created: row.7, updated: row.8, expires: row.9
            )
        }
        return nil
    }

    /// The state, outcome and failure columns for an outcome.
    static func columns(_ outcome: LedgerOutcome) throws -> (state: String, outcome: String?, failure: String?) {
        switch outcome {
        case .succeeded(let data): return (LedgerState.succeeded.rawValue, String(decoding: data, as: UTF8.self), nil)
        case .failed(let failure):
            return (LedgerState.failed.rawValue, nil, String(decoding: try encoder.encode(failure), as: UTF8.self))
        case .unknown: return (LedgerState.unknown.rawValue, nil, nil)
        }
    }

    public func record(_ outcome: LedgerOutcome, key: String, owner: UUID) async throws {
        let columns = try Self.columns(outcome)
        let now = clock.sql
        try await database.run("record an operation's outcome") { client in
            try await client.perform(
                """
                UPDATE cardgateway_operation_ledger SET state = \(columns.state), outcome = \(columns.outcome), failure = \(columns.failure), updated_at = \(unescaped: now)
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
        let now = clock.sql
        return try await database.run("read a ledger record") { session in
            try await Self.read(key, session: session, now: now)
        }
    }

    public func reconcile(key: String, to resolution: LedgerReconciliation) async throws {
        let columns: (state: String, outcome: String?, failure: String?)?
        switch resolution {
        case .forget: columns = nil
        case .succeeded(let data): columns = try Self.columns(.succeeded(data))
        case .failed(let failure): columns = try Self.columns(.failed(failure))
        }
        let now = clock.sql
        try await database.run("reconcile a ledger record") { client in
            if let columns {
                try await client.perform(
                    """
                    UPDATE cardgateway_operation_ledger SET state = \(columns.state), outcome = \(columns.outcome), failure = \(columns.failure), updated_at = \(unescaped: now)
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
        let now = clock.sql
        return try await database.run("purge expired ledger records") { client in
            try await client.query(
                "DELETE FROM cardgateway_operation_ledger WHERE expires_at <= \(unescaped: now) RETURNING 1"
            ).count()
        }
    }
}
