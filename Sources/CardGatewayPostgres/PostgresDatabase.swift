import CardGateway
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The client, timeout and endpoint the three stores share; turns every failure into a ``CardGatewayError``
/// that names the endpoint (never the password) and never carries a server message (it can quote values).
struct PostgresDatabase: Sendable {
    let client: PostgresClient
    let timeout: Duration
    let endpoint: String
    let logger: Logger
    /// After a timeout: one direct connection attempt that tells why the pool could not connect (refused, wrong
    /// password, no such database), or nil when the database answers (the pool was only busy).
    var diagnose: (@Sendable () async -> CardGatewayError?)? = nil

    /// Counts the pool's leases and how long each waited for a connection (shared by the three stores).
    var meter = PoolMeter(maximumConnections: 0)

    /// Runs `body` on one connection leased from the pool, within the timeout (the wait for the connection included).
    /// Errors become `CardGatewayError`s; cancellation stays `CancellationError`.
    func run<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresSession) async throws -> T
    ) async throws -> T {
        let meter = meter
        let logger = logger
        return try await runOnPool(
            what,
            { client in
                let asked = ContinuousClock.now
                meter.waiting()
                var leased = false
                defer { if !leased { meter.gaveUp() } }
                return try await client.withConnection { connection in
                    leased = true
                    meter.leased(after: ContinuousClock.now - asked)
                    defer { meter.returned() }
                    return try await body(PostgresSession(connection: connection, logger: logger, meter: meter))
                }
            })
    }

    /// Runs `body` with the pool itself (for a transaction, the migrations), within the timeout.
    func runOnPool<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let client = client
        do {
            return try await withTimeout(timeout) { try await body(client) }
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as CardGatewayError {
            throw error
        } catch {
            var mapped = PostgresDatabase.error(error, what: what, endpoint: endpoint, timeout: timeout)
            if error is TimedOut, let diagnose,
                let cause = try? await withTimeout(min(timeout, .seconds(3)), { await diagnose() })
            {
                mapped = cause
                mapped.message = SafeText.scrub("\(cause.message); \(what) gave up after \(timeout)", maxLength: 2000)
            }
            logger.warning(
                "postgres store failed", metadata: ["operation": .string(what), "error": .string(mapped.message)])
            throw mapped
        }
    }

    struct TimedOut: Error {}

    static func error(_ error: any Error, what: String, endpoint: String, timeout: Duration) -> CardGatewayError {
        if error is TimedOut {
            return CardGatewayError(
                .timeout,
                "the PostgreSQL store at \(endpoint) did not answer (\(what)) within \(timeout); is the database running and reachable?",
                isRetryable: true
            )
        }
        if let transaction = error as? PostgresTransactionError,
            let cause = transaction.beginError ?? transaction.closureError ?? transaction.commitError
                ?? transaction.rollbackError
        {
            return Self.error(cause, what: what, endpoint: endpoint, timeout: timeout)
        }
        guard let error = error as? PSQLError else {
            return CardGatewayError(
                .providerUnavailable, "the PostgreSQL store at \(endpoint) failed (\(what)): \(type(of: error))",
                isRetryable: true)
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "unknown"
            if state.hasPrefix("28") {
                return CardGatewayError(
                    .authenticationFailed,
                    "PostgreSQL at \(endpoint) refused the login (SQLSTATE \(state)); check the user and password of the store URL",
                    isRetryable: false
                )
            }
            if state == "3D000" {
                return CardGatewayError(
                    .invalidConfiguration,
                    "the database of the store URL does not exist at \(endpoint) (SQLSTATE 3D000)", isRetryable: false)
            }
            if state.hasPrefix("08") || state.hasPrefix("57P") || state == "53300" {
                return CardGatewayError(
                    .providerUnavailable,
                    "the PostgreSQL server at \(endpoint) is shutting down, restarting or full (SQLSTATE \(state)) (\(what))",
                    isRetryable: true
                )
            }
            if state.hasPrefix("42") {
                return CardGatewayError(
                    .invalidConfiguration,
                    "the PostgreSQL schema at \(endpoint) is not what this version expects (SQLSTATE \(state)) (\(what)); run the migrations",
                    isRetryable: false
                )
            }
            return CardGatewayError(
                .providerUnavailable, "PostgreSQL at \(endpoint) refused \(what) (SQLSTATE \(state))", isRetryable: true
            )
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return CardGatewayError(
                .providerUnavailable,
                "the PostgreSQL store at \(endpoint) cannot be reached (\(error.code)) (\(what)); is the database running?",
                isRetryable: true
            )
        default:
            return CardGatewayError(
                .providerUnavailable, "the PostgreSQL store at \(endpoint) failed (\(error.code)) (\(what))",
                isRetryable: true)
        }
    }

    /// Races `operation` against `timeout`. On timeout the caller gets ``TimedOut`` at once and the operation is
    /// cancelled in the background (a connection attempt to a dead host may take longer to notice).
    private func withTimeout<T: Sendable>(
        _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let gate = Gate<T>()
        let work = Task {
            do { gate.finish(.success(try await operation())) } catch { gate.finish(.failure(error)) }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { gate.finish(.failure(TimedOut())) }
        }
        defer {
            timer.cancel()
            work.cancel()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in gate.install(continuation) }
        } onCancel: {
            gate.finish(.failure(CancellationError()))
        }
    }
}

/// Resumes a continuation once, with the first result to arrive.
private final class Gate<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let ready = state.withLock { state -> Result<T, any Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(with: ready) }
    }

    func finish(_ result: Result<T, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(with: result)
    }
}

extension PostgresRowSequence {
    /// The number of rows, for `DELETE … RETURNING 1`.
    func count() async throws -> Int {
        var count = 0
        for try await _ in self { count += 1 }
        return count
    }
}

extension PostgresClient {
    /// Runs a statement and reads its answer to the end (which returns the connection to the pool).
    func perform(_ query: PostgresQuery) async throws {
        _ = try await self.query(query).count()
    }
}

/// One leased connection, for the statements of one store operation.
struct PostgresSession: Sendable {
    let connection: PostgresConnection
    let logger: Logger
    let meter: PoolMeter

    /// Sends one statement (one round trip) and gives its rows.
    func query(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        meter.statement()
        return try await connection.query(query, logger: logger)
    }

    /// Runs a statement and reads its answer to the end.
    func perform(_ query: PostgresQuery) async throws {
        _ = try await self.query(query).count()
    }
}

/// What the connection pool did for the stores of one ``PostgresStores``: how many store operations leased a
/// connection, how long they waited for one, and how many waited at once. postgres-nio's pool does not publish its
/// queue, so the wait is measured around the lease (from asking to holding a connection; opening a new connection
/// counts as waiting).
public struct PostgresPoolStatistics: Sendable, Equatable, CustomStringConvertible {
    /// The pool's size (``PostgresStoreConfiguration/maxConnections``).
    public var maximumConnections: Int
    /// Store operations that got a connection.
    public var leases: Int
    /// Statements sent, each one round trip to the database.
    public var statements: Int
    /// Of those, how many waited longer than 1 ms for it (a free connection is handed over in microseconds).
    public var waitedOverOneMillisecond: Int
    /// The sum of every lease's wait.
    public var totalWait: Duration
    /// The longest wait.
    public var longestWait: Duration
    /// The most operations that waited for a connection at the same time.
    public var peakWaiting: Int
    /// The most connections in use at the same time.
    public var peakInUse: Int
    /// Waits by bucket: ``PostgresPoolStatistics/bucketBounds`` (microseconds; the last bucket is unbounded).
    public var histogram: [Int]

    /// The buckets' upper bounds in microseconds: from 10 µs to 10 s, each 20 % above the one before (so a
    /// percentile is off by at most 20 %).
    public static let bucketBounds: [Int] = {
        var bounds: [Int] = []
        var bound = 10.0
        while bound <= 10_000_000 {
            bounds.append(Int(bound.rounded()))
            bound *= 1.2
        }
        return bounds
    }()

    public init(maximumConnections: Int) {
        self.maximumConnections = maximumConnections
        leases = 0
        statements = 0
        waitedOverOneMillisecond = 0
        totalWait = .zero
        longestWait = .zero
        peakWaiting = 0
        peakInUse = 0
        histogram = Array(repeating: 0, count: Self.bucketBounds.count + 1)
    }

    /// The mean wait for a connection.
    public var meanWait: Duration { leases > 0 ? totalWait / leases : .zero }

    /// The wait below which a fraction `p` (0…1) of the leases fell: the upper bound of its bucket (the longest wait
    /// for the last bucket).
    public func waitPercentile(_ p: Double) -> Duration {
        guard leases > 0 else { return .zero }
        let rank = max(1, Int((Double(leases) * p).rounded(.up)))
        var seen = 0
        for (index, count) in histogram.enumerated() {
            seen += count
            if seen >= rank {
                return index < Self.bucketBounds.count
                    ? min(.microseconds(Self.bucketBounds[index]), longestWait) : longestWait
            }
        }
        return longestWait
    }

    public var description: String {
        "PostgresPoolStatistics(maximumConnections: \(maximumConnections), leases: \(leases), statements: \(statements), waited over 1 ms: \(waitedOverOneMillisecond), mean wait: \(meanWait), longest wait: \(longestWait), peak waiting: \(peakWaiting), peak in use: \(peakInUse))"
    }
}

/// Counts for ``PostgresPoolStatistics``, updated around every lease.
final class PoolMeter: Sendable {
    private struct State {
        var statistics: PostgresPoolStatistics
        var waiting = 0
        var inUse = 0
    }

    private let state: Mutex<State>

    init(maximumConnections: Int) {
        state = Mutex(State(statistics: PostgresPoolStatistics(maximumConnections: maximumConnections)))
    }

    var statistics: PostgresPoolStatistics { state.withLock { $0.statistics } }

    func reset() {
        state.withLock { $0.statistics = PostgresPoolStatistics(maximumConnections: $0.statistics.maximumConnections) }
    }

    func waiting() {
        state.withLock { state in
            state.waiting += 1
            state.statistics.peakWaiting = max(state.statistics.peakWaiting, state.waiting)
        }
    }

    func gaveUp() {
        state.withLock { $0.waiting -= 1 }
    }

    func leased(after wait: Duration) {
        let microseconds = Int(wait.microseconds)
        let bucket =
            PostgresPoolStatistics.bucketBounds.firstIndex { microseconds <= $0 }
            ?? PostgresPoolStatistics.bucketBounds.count
        state.withLock { state in
            state.waiting -= 1
            state.inUse += 1
            state.statistics.peakInUse = max(state.statistics.peakInUse, state.inUse)
            state.statistics.leases += 1
            if microseconds > 1_000 { state.statistics.waitedOverOneMillisecond += 1 }
            state.statistics.totalWait += wait
            state.statistics.longestWait = max(state.statistics.longestWait, wait)
            state.statistics.histogram[bucket] += 1
        }
    }

    func statement() {
        state.withLock { $0.statistics.statements += 1 }
    }

    func returned() {
        state.withLock { $0.inUse -= 1 }
    }
}
