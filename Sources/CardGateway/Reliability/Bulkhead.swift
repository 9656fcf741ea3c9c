import Foundation
import Synchronization

/// A limit on the requests one provider instance has in flight, so that a provider that hangs holds at most
/// this many of the shared HTTP client's connections and the other instances keep theirs. A call over the
/// limit waits for a slot until its attempt's deadline (the instance's timeout, cut to the caller's deadline),
/// then fails with `providerUnavailable`: retryable, and never sent.
///
/// Configured per instance as `"maxConcurrentRequests": 8`; the default, 8, is AsyncHTTPClient's default
/// number of connections per host.
public final class Bulkhead: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Bool, Never>
        var timer: Task<Void, Never>?
    }

    private struct Inner {
        var inFlight = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var rejected = 0
    }

    public static let defaultLimit = 8

    public let instance: String
    public let limit: Int
    private let inner = Mutex(Inner())
    private let onInFlightChange: @Sendable (Int) -> Void

    /// - Parameters:
    ///   - instance: the provider instance whose requests are limited, for errors.
    ///   - limit: how many requests may be in flight at once.
    ///   - onInFlightChange: called with the number of requests in flight after each change (for a gauge).
    public init(instance: String, limit: Int = Bulkhead.defaultLimit, onInFlightChange: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.instance = instance
        self.limit = max(1, limit)
        self.onInFlightChange = onInFlightChange
    }

    /// Requests holding a slot now.
    public var inFlight: Int { inner.withLock { $0.inFlight } }
    /// Requests waiting for a slot now.
    public var waiting: Int { inner.withLock { $0.waiters.count } }
    /// Requests turned away because no slot came free in time, since the bulkhead was made.
    public var rejected: Int { inner.withLock { $0.rejected } }

    /// Takes a slot if one is free now, without waiting: false when the limit is reached. ``acquire(until:)`` starts
    /// with it; `BulkheadMiddleware` calls it first so that a free slot costs no asynchronous call. Throws
    /// `CancellationError` when the caller gave up.
    func acquireIfFree() throws -> Bool {
        try Task.checkCancellation()
        let inFlight: Int? = inner.withLock { inner in
            guard inner.inFlight < limit else { return nil }
            inner.inFlight += 1
            return inner.inFlight
        }
        guard let inFlight else { return false }
        onInFlightChange(inFlight)
        return true
    }

    /// Takes a slot, waiting for one until `deadline`. Throws `providerUnavailable` when none came free in
    /// time, and `CancellationError` when the caller gave up.
    public func acquire(until deadline: ContinuousClock.Instant) async throws {
        if try acquireIfFree() { return }
        // Full: wait under an id. A slot freed in between is taken below, under the same lock that queues the waiter.
        let id: UInt64 = inner.withLock { inner in
            inner.nextID += 1
            return inner.nextID
        }
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate: Bool? = inner.withLock { inner in
                    if inner.inFlight < limit {
                        inner.inFlight += 1
                        return true
                    }
                    if ContinuousClock.now >= deadline { return false }
                    inner.waiters.append(Waiter(id: id, continuation: continuation, timer: nil))
                    return nil
                }
                if let immediate {
                    if immediate { onInFlightChange(inner.withLock { $0.inFlight }) }
                    continuation.resume(returning: immediate)
                    return
                }
                let timer = Task { [weak self] in
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    self?.expire(id)
                }
                let stillWaiting = inner.withLock { inner in
                    guard let index = inner.waiters.firstIndex(where: { $0.id == id }) else { return false }
                    inner.waiters[index].timer = timer
                    return true
                }
                if !stillWaiting { timer.cancel() }
            }
        } onCancel: {
            expire(id)
        }
        guard granted else {
            if Task.isCancelled { throw CancellationError() }
            inner.withLock { $0.rejected += 1 }
            throw CardGatewayError(
                .providerUnavailable,
                "\(instance) already has \(limit) request\(limit == 1 ? "" : "s") in flight and none finished in time; nothing was sent",
                provider: instance, isRetryable: true, mayHaveReachedProvider: false
            )
        }
    }

    /// Gives a slot back, handing it straight to the longest waiter if there is one.
    public func release() {
        let next: Waiter? = inner.withLock { inner in
            if inner.waiters.isEmpty {
                inner.inFlight = max(0, inner.inFlight - 1)
                return nil
            }
            return inner.waiters.removeFirst()
        }
        if next == nil { onInFlightChange(inFlight) }
        if let next {
            next.timer?.cancel()
            next.continuation.resume(returning: true)
        }
    }

    /// Ends one wait without a slot (its deadline passed or its caller cancelled).
    private func expire(_ id: UInt64) {
        let waiter: Waiter? = inner.withLock { inner in
            guard let index = inner.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return inner.waiters.remove(at: index)
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(returning: false)
    }
}

/// Runs an instance's ``Bulkhead`` around each attempt.
public struct BulkheadMiddleware: ProviderMiddleware {
    public let bulkhead: Bulkhead

    public init(_ bulkhead: Bulkhead) {
        self.bulkhead = bulkhead
    }

    public func intercept(_ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext) async throws -> ProviderResponse {
        do {
            // A free slot is taken without the asynchronous call (and its frame); a full bulkhead waits.
            if try !bulkhead.acquireIfFree() { try await bulkhead.acquire(until: .now + context.attemptTimeout) }
        } catch var refusal as CardGatewayError {
            refusal.providerKind = context.kind
            throw refusal
        }
        defer { bulkhead.release() }
        return try await next(request, context)
    }
}
