import Foundation

/// The gateway's one seam for time and randomness.
///
/// Everything in the gateway that waits or measures a wait reads this value, never the system clock directly:
///
/// - circuit breakers (their cool-down, ``CircuitBreaker``);
/// - bulkheads (a call's wait for a slot and its deadline, ``Bulkhead``);
/// - `ProviderHTTPClient`'s retries (the back-off sleep, its full jitter, `Retry-After`) and the caller's deadline
///   (``OperationContext/deadline``) as it cuts each attempt's timeout;
/// - the operation ledger: the in-memory ledger's leases and expiry (``InMemoryOperationLedger``) and the gateway's
///   wait for an attempt in flight elsewhere.
///
/// ``system`` (the default everywhere) is `ContinuousClock` with the system's random numbers and wall clock. A test
/// passes one made from its own `Clock` (`CardGatewayTesting`'s `ManualClock`) to ``CardGateway``'s initialiser,
/// which hands it to every instance's breaker, bulkhead and HTTP client and to the default ledger; time then moves
/// only when the test moves it. Instants are on `ContinuousClock`'s scale, the scale of
/// ``OperationContext/deadline``: a test clock starts at `ContinuousClock.now` and runs from there.
///
/// What is not on this seam: the transport's own timeout (a real socket waits in real time), the durations recorded
/// in metrics and log lines (they measure real work), and the wall clock adapters read for the provider's data
/// (webhook freshness, key expiry: ``CardGateway``'s `now`, which defaults to this clock's ``date``).
public struct GatewayClock: Sendable {
    private let readNow: @Sendable () -> ContinuousClock.Instant
    private let sleeper: @Sendable (ContinuousClock.Instant) async throws -> Void
    private let readDate: @Sendable () -> Date
    private let draw: @Sendable () -> Double

    /// A seam over `clock`.
    ///
    /// - Parameters:
    ///   - clock: what the gateway reads the time from and sleeps on.
    ///   - date: the wall clock for records (a ledger record's `created`, `expires`); by default the wall time when
    ///     this value was made, moved on as `clock` moves (so a test clock's ledger leases run with it).
    ///   - random: a number in `0...1` for the retry back-off's full jitter; the system's random numbers by default.
    public init<C: Clock>(
        _ clock: C, date: (@Sendable () -> Date)? = nil,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) where C.Instant == ContinuousClock.Instant {
        self.readNow = { clock.now }
        self.sleeper = { deadline in try await clock.sleep(until: deadline, tolerance: nil) }
        if let date {
            self.readDate = date
        } else {
            let anchor = clock.now
            let anchorDate = Date()
            self.readDate = { anchorDate.addingTimeInterval((clock.now - anchor).timeInterval) }
        }
        self.draw = random
    }

    /// `ContinuousClock`, the system's wall clock and the system's random numbers.
    public static let system = GatewayClock(ContinuousClock(), date: { Date() })

    /// The time now.
    public var now: ContinuousClock.Instant { readNow() }

    /// The wall-clock time now (for records that carry a date).
    public var date: Date { readDate() }

    /// Suspends until `deadline` on this clock. Throws `CancellationError` when the task is cancelled.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await sleeper(deadline)
    }

    /// Suspends for `duration` on this clock. Throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleeper(readNow() + duration)
    }

    /// A random number in `0...1` (the retry back-off's jitter).
    public func random() -> Double {
        min(max(draw(), 0), 1)
    }

    /// This clock with another random source (a fixed `{ 0.5 }` makes back-off delays exact in a test).
    public func with(random: @escaping @Sendable () -> Double) -> GatewayClock {
        GatewayClock(readNow: readNow, sleeper: sleeper, readDate: readDate, draw: random)
    }

    private init(
        readNow: @escaping @Sendable () -> ContinuousClock.Instant,
        sleeper: @escaping @Sendable (ContinuousClock.Instant) async throws -> Void,
        readDate: @escaping @Sendable () -> Date, draw: @escaping @Sendable () -> Double
    ) {
        self.readNow = readNow
        self.sleeper = sleeper
        self.readDate = readDate
        self.draw = draw
    }
}
