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

    /// Runs `body` within the timeout. Errors become `CardGatewayError`s; cancellation stays `CancellationError`.
    func run<T: Sendable>(_ what: String, _ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let client = client
        do {
            return try await withTimeout(timeout) { try await body(client) }
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as CardGatewayError {
            throw error
        } catch {
            var mapped = PostgresDatabase.error(error, what: what, endpoint: endpoint, timeout: timeout)
            if error is TimedOut, let diagnose, let cause = try? await withTimeout(min(timeout, .seconds(3)), { await diagnose() }) {
                mapped = cause
                mapped.message = SafeText.scrub("\(cause.message); \(what) gave up after \(timeout)", maxLength: 2000)
            }
            logger.warning("postgres store failed", metadata: ["operation": .string(what), "error": .string(mapped.message)])
            throw mapped
        }
    }

    struct TimedOut: Error {}

    static func error(_ error: any Error, what: String, endpoint: String, timeout: Duration) -> CardGatewayError {
        if error is TimedOut {
            return CardGatewayError(
                .timeout, "the PostgreSQL store at \(endpoint) did not answer (\(what)) within \(timeout); is the database running and reachable?",
                isRetryable: true
            )
        }
        if let transaction = error as? PostgresTransactionError,
            let cause = transaction.beginError ?? transaction.closureError ?? transaction.commitError ?? transaction.rollbackError
        {
            return Self.error(cause, what: what, endpoint: endpoint, timeout: timeout)
        }
        guard let error = error as? PSQLError else {
            return CardGatewayError(.providerUnavailable, "the PostgreSQL store at \(endpoint) failed (\(what)): \(type(of: error))", isRetryable: true)
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "unknown"
            if state.hasPrefix("28") {
                return CardGatewayError(
                    .authenticationFailed, "PostgreSQL at \(endpoint) refused the login (SQLSTATE \(state)); check the user and password of the store URL",
                    isRetryable: false
                )
            }
            if state == "3D000" {
                return CardGatewayError(.invalidConfiguration, "the database of the store URL does not exist at \(endpoint) (SQLSTATE 3D000)", isRetryable: false)
            }
            if state.hasPrefix("08") || state.hasPrefix("57P") || state == "53300" {
                return CardGatewayError(
                    .providerUnavailable, "the PostgreSQL server at \(endpoint) is shutting down, restarting or full (SQLSTATE \(state)) (\(what))",
                    isRetryable: true
                )
            }
            if state.hasPrefix("42") {
                return CardGatewayError(
                    .invalidConfiguration, "the PostgreSQL schema at \(endpoint) is not what this version expects (SQLSTATE \(state)) (\(what)); run the migrations",
                    isRetryable: false
                )
            }
            return CardGatewayError(.providerUnavailable, "PostgreSQL at \(endpoint) refused \(what) (SQLSTATE \(state))", isRetryable: true)
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return CardGatewayError(
                .providerUnavailable, "the PostgreSQL store at \(endpoint) cannot be reached (\(error.code)) (\(what)); is the database running?",
                isRetryable: true
            )
        default:
            return CardGatewayError(.providerUnavailable, "the PostgreSQL store at \(endpoint) failed (\(error.code)) (\(what))", isRetryable: true)
        }
    }

    /// Races `operation` against `timeout`. On timeout the caller gets ``TimedOut`` at once and the operation is
    /// cancelled in the background (a connection attempt to a dead host may take longer to notice).
    private func withTimeout<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
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

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

extension PostgresClient {
    /// Runs a statement and reads its answer to the end (which returns the connection to the pool).
    func perform(_ query: PostgresQuery) async throws {
        _ = try await self.query(query).count()
    }
}
