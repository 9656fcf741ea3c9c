import CardGateway
import Foundation
import Synchronization

/// A clock that moves only when the test moves it: the test side of ``GatewayClock``.
///
/// Give it to the gateway (`CardGateway(…, clock: clock.gatewayClock())`) or to one breaker, bulkhead or
/// `ProviderHTTPClient`, and a breaker's cool-down, a bulkhead's wait, a retry's back-off, a caller's deadline and a
/// ledger lease all run on it. A task that sleeps on it (a retry's back-off, a bulkhead waiter's deadline) is
/// suspended until ``advance(by:)`` passes its deadline; ``waitForSleepers(_:)`` suspends the test until that many
/// are asleep, so a test never polls or waits on the wall clock:
///
/// ```swift
/// let clock = ManualClock()
/// let client = try ProviderHTTPClient(…, clock: clock.gatewayClock())
/// let call = Task { try await client.send(request, context: OperationContext()) }
/// await clock.waitForSleepers(1)          // the retry is waiting out its back-off
/// #expect(clock.sleeps == [.seconds(3)])  // the provider's Retry-After
/// clock.advance(by: .seconds(3))          // …and now it is sent again
/// ```
///
/// With `advancesOnSleep: true` it is a virtual clock instead: a sleep moves it to the sleep's deadline and returns at
/// once (a retry test that only cares what was waited, not when).
///
/// Instants are `ContinuousClock.Instant`s, starting at `ContinuousClock.now` when the clock is made, so deadlines made
/// the usual way (`.now + .seconds(5)`) are on its scale.
public final class ManualClock: Clock, Sendable {
    public typealias Instant = ContinuousClock.Instant
    public typealias Duration = Swift.Duration

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Instant
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        var sleeps: [Duration] = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// The watchers whose count is reached, removed.
        mutating func readyWatchers() -> [CheckedContinuation<Void, Never>] {
            let count = sleepers.count
            let ready = watchers.filter { $0.count <= count }.map(\.continuation)
            watchers.removeAll { $0.count <= count }
            return ready
        }
    }

    private let state: Mutex<State>
    private let start: Instant
    private let startDate: Date
    private let advancesOnSleep: Bool
    private let onSleep: (@Sendable (Duration) -> Void)?

    /// - Parameters:
    ///   - now: where the clock starts; `ContinuousClock.now` by default.
    ///   - date: the wall-clock date at `now` (what ``date`` reads before the clock moves); the current date by default.
    ///   - advancesOnSleep: whether a sleep moves the clock to its deadline and returns at once (a virtual clock)
    ///     rather than waiting for ``advance(by:)``.
    public convenience init(now: Instant = .now, date: Date = Date(), advancesOnSleep: Bool = false) {
        self.init(now: now, date: date, advancesOnSleep: advancesOnSleep, onSleep: nil)
    }

    init(now: Instant = .now, date: Date = Date(), advancesOnSleep: Bool, onSleep: (@Sendable (Duration) -> Void)?) {
        self.state = Mutex(State(now: now))
        self.start = now
        self.startDate = date
        self.advancesOnSleep = advancesOnSleep
        self.onSleep = onSleep
    }

    public var now: Instant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .zero }

    /// The wall-clock date now: the start date moved on by as much as the clock has been advanced.
    public var date: Date {
        startDate.addingTimeInterval((now - start).timeInterval)
    }

    /// How many tasks are asleep on the clock now.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// Every sleep asked of the clock, in order, as the time from the clock's `now` to its deadline then (a sleep whose
    /// deadline had already passed counts as zero).
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// This clock as the gateway's seam, with a fixed jitter of 0.5 unless told otherwise (so back-off delays are exact).
    public func gatewayClock(random: @escaping @Sendable () -> Double = { 0.5 }) -> GatewayClock {
        GatewayClock(self, date: { [self] in self.date }, random: random)
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let (immediate, asked): (Bool, Duration) = state.withLock { state in
            let asked = max(.zero, deadline - state.now)
            state.sleeps.append(asked)
            if deadline <= state.now { return (true, asked) }
            if advancesOnSleep {
                state.now = deadline
                return (true, asked)
            }
            return (false, asked)
        }
        onSleep?(asked)
        if immediate { return }
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Verdict { case asleep([CheckedContinuation<Void, Never>]), due, cancelled }
                let verdict: Verdict = state.withLock { state in
                    // The cancellation handler may have run before the sleeper was registered: it found nothing to
                    // wake, but the task is already marked cancelled.
                    if Task.isCancelled { return .cancelled }
                    if deadline <= state.now { return .due }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .asleep(state.readyWatchers())
                }
                switch verdict {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .due: continuation.resume()
                case .asleep(let watchers): for watcher in watchers { watcher.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline has come, earliest first.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.now += max(.zero, duration)
            return Self.takeDue(&state)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves the clock forward to `instant` (never back) and wakes every sleeper whose deadline has come.
    public func advance(to instant: Instant) {
        let due: [Sleeper] = state.withLock { state in
            if instant > state.now { state.now = instant }
            return Self.takeDue(&state)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Suspends until at least `count` tasks are asleep on the clock (at once if they already are). Signalled by the
    /// sleepers themselves: no polling, no wall-clock wait. Bound the test with `.timeLimit` in case they never come.
    public func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = state.withLock { state in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeDue(_ state: inout State) -> [Sleeper] {
        let now = state.now
        let due = state.sleepers.filter { $0.value.deadline <= now }.sorted {
            $0.value.deadline < $1.value.deadline || ($0.value.deadline == $1.value.deadline && $0.key < $1.key)
        }
        for (id, _) in due { state.sleepers[id] = nil }
        return due.map(\.value)
    }
}
