import Foundation
import Logging
import Synchronization

/// How a provider instance's circuit breaker behaves. Configured per instance as
/// `"circuitBreaker": {"failureThreshold": 5, "coolDownSeconds": 30, "halfOpenProbes": 1}` (or `false` to turn
/// it off).
public struct CircuitBreakerSettings: Sendable, Equatable {
    /// Whether the breaker acts at all. When off, every call goes through and nothing is counted.
    public var isEnabled: Bool
    /// Consecutive failures that count (timeouts, connection failures, 408, 429 and 5xx; never a 4xx the caller
    /// caused) that open the breaker.
    public var failureThreshold: Int
    /// How long the breaker stays open before it lets probes through.
    public var coolDown: Duration
    /// How many probe attempts may be in flight at once while half-open. One successful probe closes the
    /// breaker; one failed probe opens it again for another cool-down.
    public var halfOpenProbes: Int

    public init(
        isEnabled: Bool = true, failureThreshold: Int = 5, coolDown: Duration = .seconds(30), halfOpenProbes: Int = 1
    ) {
        self.isEnabled = isEnabled
        self.failureThreshold = max(1, failureThreshold)
        self.coolDown = coolDown
        self.halfOpenProbes = max(1, halfOpenProbes)
    }

    /// 5 consecutive failures, 30 s open, 1 probe.
    public static let `default` = CircuitBreakerSettings()
    public static let disabled = CircuitBreakerSettings(isEnabled: false)
}

/// A circuit breaker for one provider instance: closed → open after ``CircuitBreakerSettings/failureThreshold``
/// consecutive failures → half-open after the cool-down, with a bounded number of probes → closed on a
/// successful probe. While open, calls fail at once with `providerUnavailable` (retryable, never sent, with the
/// time until the next probe as `retryAfter`).
///
/// The gateway makes one per instance and runs it once per attempt, before the bulkhead; read its state with
/// ``state`` or ``snapshot`` (``ProviderInstance/breaker``).
public final class CircuitBreaker: Sendable {
    public enum State: Sendable, Equatable, CustomStringConvertible {
        case closed
        /// Refusing calls until `until`.
        case open(until: ContinuousClock.Instant)
        /// Letting up to ``CircuitBreakerSettings/halfOpenProbes`` probes through.
        case halfOpen

        /// `closed`, `open` or `halfOpen`, for logs and metrics.
        public var name: String {
            switch self {
            case .closed: return "closed"
            case .open: return "open"
            case .halfOpen: return "halfOpen"
            }
        }

        public var description: String { name }
    }

    /// What the breaker knows, at one moment.
    public struct Snapshot: Sendable, Equatable {
        public var state: State
        public var consecutiveFailures: Int
        /// How long until the breaker lets a probe through, when it is open.
        public var nextProbeIn: Duration?
        /// How many times it has opened since it was made.
        public var timesOpened: Int
    }

    /// What one admitted attempt turned out to be.
    public enum Outcome: Sendable, Equatable {
        case success
        /// A failure that counts towards opening.
        case failure
        /// Says nothing about the provider's health (the caller cancelled, another middleware refused).
        case ignored
    }

    /// A pass for one attempt; give it back with ``record(_:for:)``.
    public struct Admission: Sendable {
        let isProbe: Bool
    }

    private struct Inner {
        var state: State = .closed
        var consecutiveFailures = 0
        var probesInFlight = 0
        var timesOpened = 0
    }

    public let instance: String
    public let settings: CircuitBreakerSettings
    private let inner = Mutex(Inner())
    /// The clock the cool-down is measured on.
    public let clock: GatewayClock
    private let logger: Logger
    private let onStateChange: @Sendable (_ from: State, _ to: State) -> Void

    /// - Parameters:
    ///   - instance: the provider instance the breaker guards, for logs and errors.
    ///   - settings: the failure threshold, cool-down and number of half-open probes.
    ///   - logger: where changes of state are logged.
    ///   - clock: the clock the cool-down is measured on (``GatewayClock/system`` by default; a test's manual clock in
    ///     tests). The gateway passes its own.
    ///   - onStateChange: called after each change of state (outside the breaker's lock), for metrics.
    public init(
        instance: String, settings: CircuitBreakerSettings = .default, logger: Logger = OperationContext.noopLogger,
        clock: GatewayClock = .system,
        onStateChange: @escaping @Sendable (_ from: State, _ to: State) -> Void = { _, _ in }
    ) {
        self.instance = instance
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.onStateChange = onStateChange
    }

    /// The state now (an open breaker whose cool-down is over reads as half-open).
    public var state: State { snapshot.state }

    public var snapshot: Snapshot {
        let current = clock.now
        return inner.withLock { inner in
            var state = inner.state
            var nextProbe: Duration?
            if case .open(let until) = state {
                if until <= current { state = .halfOpen } else { nextProbe = until - current }
            }
            return Snapshot(
                state: state, consecutiveFailures: inner.consecutiveFailures, nextProbeIn: nextProbe,
                timesOpened: inner.timesOpened)
        }
    }

    /// Lets an attempt through, or throws `providerUnavailable` when the breaker is open (or half-open with its
    /// probes all in flight).
    public func admit() throws -> Admission {
        guard settings.isEnabled else { return Admission(isProbe: false) }
        let current = clock.now
        var change: (State, State)?
        let verdict: Result<Admission, CardGatewayError> = inner.withLock { inner in
            if case .open(let until) = inner.state {
                if until > current {
                    return .failure(refusal(retryAfter: until - current, failures: inner.consecutiveFailures))
                }
                change = (inner.state, .halfOpen)
                inner.state = .halfOpen
                inner.probesInFlight = 0
            }
            if inner.state == .halfOpen {
                guard inner.probesInFlight < settings.halfOpenProbes else {
                    return .failure(refusal(retryAfter: nil, failures: inner.consecutiveFailures))
                }
                inner.probesInFlight += 1
                return .success(Admission(isProbe: true))
            }
            return .success(Admission(isProbe: false))
        }
        if let change { announce(change) }
        return try verdict.get()
    }

    /// Records how an admitted attempt went.
    public func record(_ outcome: Outcome, for admission: Admission) {
        guard settings.isEnabled else { return }
        let current = clock.now
        var change: (State, State)?
        inner.withLock { inner in
            if admission.isProbe { inner.probesInFlight = max(0, inner.probesInFlight - 1) }
            switch outcome {
            case .ignored:
                return
            case .success:
                inner.consecutiveFailures = 0
                if inner.state != .closed && (admission.isProbe || inner.state == .halfOpen) {
                    change = (inner.state, .closed)
                    inner.state = .closed
                    inner.probesInFlight = 0
                }
            case .failure:
                inner.consecutiveFailures += 1
                let reopen = inner.state == .halfOpen && admission.isProbe
                if reopen || (inner.state == .closed && inner.consecutiveFailures >= settings.failureThreshold) {
                    let next = State.open(until: current + settings.coolDown)
                    change = (inner.state, next)
                    inner.state = next
                    inner.timesOpened += 1
                    inner.probesInFlight = 0
                }
            }
        }
        if let change { announce(change) }
    }

    private func refusal(retryAfter: Duration?, failures: Int) -> CardGatewayError {
        let when =
            retryAfter.map { "; the next probe is allowed in \(Self.seconds($0)) s" }
            ?? "; a probe is already in flight"
        return CardGatewayError(
            .providerUnavailable,
            "the circuit breaker of \(instance) is open after \(failures) consecutive failure\(failures == 1 ? "" : "s")\(when); nothing was sent",
            provider: instance, isRetryable: true, mayHaveReachedProvider: false, retryAfter: retryAfter ?? .seconds(1)
        )
    }

    private func announce(_ change: (State, State)) {
        let metadata: Logger.Metadata = [
            "provider": .string(instance), "breaker.from": .string(change.0.name), "breaker.to": .string(change.1.name),
        ]
        switch change.1 {
        case .open: logger.warning("circuit breaker opened", metadata: metadata)
        case .halfOpen: logger.notice("circuit breaker half-open: probing", metadata: metadata)
        case .closed: logger.notice("circuit breaker closed", metadata: metadata)
        }
        onStateChange(change.0, change.1)
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f", duration.timeInterval)
    }
}

/// Runs an instance's ``CircuitBreaker`` around each attempt and tells it what counted as a failure.
public struct CircuitBreakerMiddleware: ProviderMiddleware {
    public let breaker: CircuitBreaker

    public init(_ breaker: CircuitBreaker) {
        self.breaker = breaker
    }

    public func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        let admission: CircuitBreaker.Admission
        do { admission = try breaker.admit() } catch var refusal as CardGatewayError {
            refusal.providerKind = context.kind
            throw refusal
        }
        do {
            let response = try await next(request, context)
            breaker.record(Self.outcome(status: response.status), for: admission)
            return response
        } catch let error as TransportError {
            // Our own refusal to send (a bad URL) and a caller who gave up say nothing about the provider.
            let counts = error.kind != .invalidRequest && !Task.isCancelled
            breaker.record(counts ? .failure : .ignored, for: admission)
            throw error
        } catch {
            breaker.record(.ignored, for: admission)
            throw error
        }
    }

    /// 408, 429 and 5xx count as failures; every other answer shows the provider is up.
    public static func outcome(status: Int) -> CircuitBreaker.Outcome {
        status == 408 || status == 429 || (500...599).contains(status) ? .failure : .success
    }
}
