import CardGateway
import Foundation
import PostgresNIO

/// Rate limits that every instance of a program counts in together, in `cardgateway_rate_limits`: one token bucket
/// per scope and key (the provisioning server's card details and PIN limit: scope ``cardRevealScope``, key the user
/// id), `perMinute` tokens a minute refilled continuously, a burst of one minute's allowance: the same rule as the
/// server's in-memory limiter, counted in the database.
///
/// Each spend is one statement (an upsert that reads, refills and spends under the row's lock), so two instances
/// spending for one key at once are counted one after the other. The time is the caller's clock (``spend(scope:key:
/// perMinute:cost:now:)``), never allowed to run a bucket backwards: an instance whose clock is behind refills
/// nothing. A row holds ids and a count, never a token or card data. Rows idle for an hour (refilled long before)
/// are deleted by ``purgeIdle(before:)``, which ``PostgresStores/run()`` calls with the ledger's purge.
public struct PostgresRateLimits: Sendable {
    let database: PostgresDatabase

    /// How far below `cost` a refilled bucket still counts as holding it: the refill is floating-point arithmetic, and
    /// 30 s at two tokens a minute must give the whole token back.
    static let tolerance = 1e-9

    /// The provisioning server's card details and PIN calls, per user.
    public static let cardRevealScope = "cardReveal"

    /// How long a bucket is kept after its last spend: an hour, long after any bucket of at least one call a minute has
    /// refilled (a refilled bucket is the same as none).
    public static let idleRetention: Duration = .seconds(3600)

    /// Spends `cost` tokens of the bucket of `key` in `scope`. Returns nil when they were there, else how long until
    /// they will be (and spends nothing).
    ///
    /// - Parameters:
    ///   - scope: what is limited (``cardRevealScope``).
    ///   - key: whose bucket (a user id); at most 256 characters, stored as given.
    ///   - perMinute: tokens a minute, and the bucket's capacity (at least 1).
    ///   - cost: tokens this call spends (1 by default; at most `perMinute`).
    ///   - now: the time of the spend.
    public func spend(
        scope: String, key: String, perMinute: Int, cost: Double = 1, now: Date = Date()
    ) async throws -> Duration? {
        let capacity = Double(max(1, perMinute))
        let cost = min(max(0, cost), capacity)
        let perSecond = capacity / 60
        return try await database.run("spend a rate limit token") { client in
            // The bucket refilled from its last spend to now (never below its tokens: a clock behind refills nothing),
            // capped at capacity; spent when it holds `cost`, else left as it is.
            let rows = try await client.query(
                """
                INSERT INTO cardgateway_rate_limits AS b (scope, key, tokens, updated_at, granted)
                VALUES (\(scope), \(key), \(capacity - cost), \(now), true)
                ON CONFLICT (scope, key) DO UPDATE SET
                    tokens = LEAST(\(capacity)::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM (\(now)::timestamptz - b.updated_at))::float8) * \(perSecond)::float8)
                        - CASE WHEN LEAST(\(capacity)::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM (\(now)::timestamptz - b.updated_at))::float8) * \(perSecond)::float8) >= \(cost - Self.tolerance)::float8
                               THEN \(cost)::float8 ELSE 0 END,
                    granted = LEAST(\(capacity)::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM (\(now)::timestamptz - b.updated_at))::float8) * \(perSecond)::float8) >= \(cost - Self.tolerance)::float8,
                    updated_at = GREATEST(b.updated_at, \(now)::timestamptz)
                RETURNING tokens, granted
                """
            )
            var result: (tokens: Double, granted: Bool)?
            for try await row in rows.decode((Double, Bool).self) { result = (row.0, row.1) }
            guard let result else {
                throw CardGatewayError(.invalidResponse, "the rate limit's bucket was not returned")
            }
            guard !result.granted else { return nil }
            let seconds = max(0, cost - result.tokens) / perSecond
            return .milliseconds(Int64(max(1, (seconds * 1000).rounded(.up))))
        }
    }

    /// Deletes the buckets not spent from since `cutoff`; returns how many.
    @discardableResult
    public func purgeIdle(before cutoff: Date) async throws -> Int {
        try await database.run("purge idle rate limit buckets") { client in
            try await client.query("DELETE FROM cardgateway_rate_limits WHERE updated_at < \(cutoff) RETURNING 1")
                .count()
        }
    }
}
