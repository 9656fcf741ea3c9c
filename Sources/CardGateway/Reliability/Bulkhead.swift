import Foundation
import Synchronization

/// A limit on the requests one provider instance has in flight, so that a provider that hangs holds at most
/// this many requests (and connections) and the other instances keep theirs. A call over the limit waits in a
/// bounded line for a slot until its attempt's deadline (the instance's timeout, cut to the caller's deadline),
/// then fails with `providerUnavailable`: retryable, and never sent. When the line is full too, the call fails
/// the same way at once instead of queueing without bound.
///
/// Configured per instance as `"maxConcurrentRequests": 1024` and `"maxWaitingRequests": 1024`. The default
/// limit, 1,024, is sized so that the gateway is not the ceiling: at 300 ms a call it carries about 3,400 calls a
/// second per instance, at 100 ms about 10,000, more than providers' published rate limits and what one instance's
/// CPU gives (docs/LOAD.md), while one provider that hangs still holds at most 1,024 requests, about 90 KB each
/// (the live heap per call in flight measured by `load/<kind>/1024`): some 90 MB. The default transport's
/// connection pool per host is sized to match (``Bulkhead/maximumLimit`` connections per host), so that over
/// HTTP/1.1 the bulkhead, not the pool, is the limit.
public final class Bulkhead: Sendable {
    /// How a call's wait for a slot ended.
    public enum WaitOutcome: String, Sendable, CaseIterable {
        /// It got a slot (at once, or after waiting).
        case acquired
        /// Its deadline passed before a slot came free.
        case expired
        /// The waiting line was full: refused at once.
        case full
        /// Its caller gave up while it waited.
        case cancelled
    }

    /// What the bulkhead reports as it works (for metrics). Every closure is called outside the bulkhead's lock.
    public struct Observer: Sendable {
        /// The number of requests holding a slot, after each change.
        public var inFlightChanged: @Sendable (Int) -> Void
        /// The number of calls waiting in line, after each change.
        public var waitingChanged: @Sendable (Int) -> Void
        /// How long a call waited for a slot and how that ended: once per call that asked for a slot (zero for a
        /// call that found one free, or was refused at once because the line was full).
        public var waited: @Sendable (Duration, WaitOutcome) -> Void

        public init(
            inFlightChanged: @escaping @Sendable (Int) -> Void = { _ in },
            waitingChanged: @escaping @Sendable (Int) -> Void = { _ in },
            waited: @escaping @Sendable (Duration, WaitOutcome) -> Void = { _, _ in }
        ) {
            self.inFlightChanged = inFlightChanged
            self.waitingChanged = waitingChanged
            self.waited = waited
        }
    }

    private struct Waiter {
        var continuation: CheckedContinuation<WaitOutcome, Never>
        var timer: Task<Void, Never>?
    }

    private struct Inner {
        var inFlight = 0
        /// The live waiters by id; `order` gives their order of arrival (with the ids of waiters that left early,
        /// skipped when reached).
        var waiters: [UInt64: Waiter] = [:]
        var order: [UInt64] = []
        var head = 0
        var nextID: UInt64 = 0
        var rejected = 0

        /// Removes and returns the longest waiter.
        mutating func popFirst() -> Waiter? {
            while head < order.count {
                let id = order[head]
                head += 1
                if let waiter = waiters.removeValue(forKey: id) {
                    compact()
                    return waiter
                }
            }
            compact()
            return nil
        }

        /// Drops the ids already passed, and those of waiters that left early once they outnumber the live ones.
        mutating func compact() {
            if head == order.count {
                order.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 256 && head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
            if order.count - head > 2 * waiters.count + 256 {
                order = order[head...].filter { waiters[$0] != nil }
                head = 0
            }
        }
    }

    /// Requests in flight at once per instance by default.
    public static let defaultLimit = 1024
    /// Calls waiting for a slot per instance by default: as many as the limit, a line that drains in about one
    /// provider round trip.
    public static let defaultMaxWaiting = 1024
    /// The largest `maxConcurrentRequests` configuration accepts.
    public static let maximumLimit = 10_000
    /// The largest `maxWaitingRequests` configuration accepts.
    public static let maximumWaiting = 100_000

    public let instance: String
    public let limit: Int
    /// How many calls may wait for a slot at once; 0: a call over the limit is refused at once.
    public let maxWaiting: Int
    /// The clock the bulkhead measures waits and deadlines with, and waits on.
    public let clock: GatewayClock
    let observer: Observer
    private let inner = Mutex(Inner())

    /// - Parameters:
    ///   - instance: the provider instance whose requests are limited, for errors.
    ///   - limit: how many requests may be in flight at once.
    ///   - maxWaiting: how many calls may wait for a slot at once; a call beyond it is refused at once.
    ///   - clock: the clock waits are measured and deadlines kept on (``GatewayClock/system`` by default; a test's
    ///     manual clock in tests): a waiter whose deadline passes on it leaves the line. The gateway passes its own.
    ///   - observer: what to tell of slots, the waiting line and each wait (for metrics).
    public init(
        instance: String, limit: Int = Bulkhead.defaultLimit, maxWaiting: Int = Bulkhead.defaultMaxWaiting,
        clock: GatewayClock = .system, observer: Observer = Observer()
    ) {
        self.instance = instance
        self.limit = max(1, limit)
        self.maxWaiting = max(0, maxWaiting)
        self.clock = clock
        self.observer = observer
    }

    /// Requests holding a slot now.
    public var inFlight: Int { inner.withLock { $0.inFlight } }
    /// Requests waiting for a slot now.
    public var waiting: Int { inner.withLock { $0.waiters.count } }
    /// Requests turned away (no slot came free in time, or the line was full), since the bulkhead was made.
    public var rejected: Int { inner.withLock { $0.rejected } }

    /// Takes a slot if one is free now, without waiting: false when the limit is reached. ``acquire(until:)`` starts
    /// with it; `BulkheadMiddleware` calls it first and waits only when it is false. Throws
    /// `CancellationError` when the caller gave up. Reports no wait (the caller does, or ``acquire(until:)``).
    func acquireIfFree() throws -> Bool {
        try Task.checkCancellation()
        let inFlight: Int? = inner.withLock { inner in
            guard inner.inFlight < limit else { return nil }
            inner.inFlight += 1
            return inner.inFlight
        }
        guard let inFlight else { return false }
        observer.inFlightChanged(inFlight)
        return true
    }

    /// Takes a slot, waiting for one until `deadline`. Throws `providerUnavailable` when none came free in
    /// time or the waiting line is full, and `CancellationError` when the caller gave up.
    public func acquire(until deadline: ContinuousClock.Instant) async throws {
        if try acquireIfFree() {
            observer.waited(.zero, .acquired)
            return
        }
        try await wait(until: deadline)
    }

    /// The bulkhead was full when asked: joins the line (when there is room) and waits for a slot until `deadline`.
    func wait(until deadline: ContinuousClock.Instant) async throws {
        let started = clock.now
        // Full: wait under an id. A slot freed in between is taken below, under the same lock that queues the waiter.
        let id: UInt64 = inner.withLock { inner in
            inner.nextID += 1
            return inner.nextID
        }
        // Whether the call joined the line: one that did not (a slot came free in between, its deadline had passed,
        // the line was full) reports no wait.
        var queued = false
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WaitOutcome, Never>) in
                // (outcome now, or nil when queued; in flight after taking a slot; waiting after queueing)
                let immediate: (outcome: WaitOutcome?, inFlight: Int, waiting: Int) = inner.withLock { inner in
                    if inner.inFlight < limit {
                        inner.inFlight += 1
                        return (.acquired, inner.inFlight, -1)
                    }
                    if Task.isCancelled { return (.cancelled, -1, -1) }
                    if clock.now >= deadline {
                        inner.rejected += 1
                        return (.expired, -1, -1)
                    }
                    if inner.waiters.count >= maxWaiting {
                        inner.rejected += 1
                        return (.full, -1, -1)
                    }
                    inner.waiters[id] = Waiter(continuation: continuation, timer: nil)
                    inner.order.append(id)
                    return (nil, -1, inner.waiters.count)
                }
                if let outcome = immediate.outcome {
                    if immediate.inFlight >= 0 { observer.inFlightChanged(immediate.inFlight) }
                    continuation.resume(returning: outcome)
                    return
                }
                queued = true
                observer.waitingChanged(immediate.waiting)
                let timerClock = clock
                let timer = Task { [weak self] in
                    do { try await timerClock.sleep(until: deadline) } catch { return }
                    self?.leave(id, .expired)
                }
                let stillWaiting = inner.withLock { inner in
                    guard inner.waiters[id] != nil else { return false }
                    inner.waiters[id]?.timer = timer
                    return true
                }
                if !stillWaiting { timer.cancel() }
            }
        } onCancel: {
            leave(id, .cancelled)
        }
        observer.waited(queued ? max(.zero, clock.now - started) : .zero, outcome)
        switch outcome {
        case .acquired:
            return
        case .cancelled:
            throw CancellationError()
        case .expired:
            throw CardGatewayError(
                .providerUnavailable,
                "\(instance) already has \(limit) request\(limit == 1 ? "" : "s") in flight and none finished in time; nothing was sent",
                provider: instance, isRetryable: true, mayHaveReachedProvider: false
            )
        case .full:
            throw CardGatewayError(
                .providerUnavailable,
                "\(instance) already has \(limit) request\(limit == 1 ? "" : "s") in flight and \(maxWaiting) waiting; nothing was sent",
                provider: instance, isRetryable: true, mayHaveReachedProvider: false
            )
        }
    }

    /// Gives a slot back, handing it straight to the longest waiter if there is one.
    public func release() {
        let (next, inFlight, waiting): (Waiter?, Int, Int) = inner.withLock { inner in
            if let next = inner.popFirst() { return (next, inner.inFlight, inner.waiters.count) }
            inner.inFlight = max(0, inner.inFlight - 1)
            return (nil, inner.inFlight, -1)
        }
        guard let next else {
            observer.inFlightChanged(inFlight)
            return
        }
        observer.waitingChanged(waiting)
        next.timer?.cancel()
        next.continuation.resume(returning: .acquired)
    }

    /// Ends one wait without a slot (its deadline passed or its caller cancelled).
    private func leave(_ id: UInt64, _ outcome: WaitOutcome) {
        let left: (Waiter, Int)? = inner.withLock { inner in
            guard let waiter = inner.waiters.removeValue(forKey: id) else { return nil }
            if outcome == .expired { inner.rejected += 1 }
            inner.compact()
            return (waiter, inner.waiters.count)
        }
        guard let left else { return }
        let (waiter, waiting) = left
        observer.waitingChanged(waiting)
        waiter.timer?.cancel()
        waiter.continuation.resume(returning: outcome)
    }
}

/// Runs an instance's ``Bulkhead`` around each attempt. A call that waited for its slot goes on with what is
/// left of its attempt's time, so the wait never extends its deadline.
public struct BulkheadMiddleware: ProviderMiddleware {
    public let bulkhead: Bulkhead

    public init(_ bulkhead: Bulkhead) {
        self.bulkhead = bulkhead
    }

    public func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        var context = context
        do {
            // A free slot is taken without the asynchronous call (and its frame); a full bulkhead waits.
            if try bulkhead.acquireIfFree() {
                bulkhead.observer.waited(.zero, .acquired)
            } else {
                let deadline = bulkhead.clock.now + context.attemptTimeout
                try await bulkhead.wait(until: deadline)
                let remaining = deadline - bulkhead.clock.now
                guard remaining > .zero else {
                    bulkhead.release()
                    throw CardGatewayError(
                        .providerUnavailable,
                        "\(bulkhead.instance)'s slot came free as the attempt's time ran out; nothing was sent",
                        provider: bulkhead.instance, isRetryable: true, mayHaveReachedProvider: false
                    )
                }
                context.attemptTimeout = remaining
            }
        } catch var refusal as CardGatewayError {
            refusal.providerKind = context.kind
            throw refusal
        }
        defer { bulkhead.release() }
        return try await next(request, context)
    }
}
