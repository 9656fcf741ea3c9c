import CoreMetrics
import Foundation
import HTTPTypes
import Synchronization
import Tracing

/// Where the gateway sends its metrics and spans. The library bootstraps nothing: by default it uses whatever
/// the program bootstrapped (`MetricsSystem`, `InstrumentationSystem`), which is nothing at all until it does.
/// Pass a factory or a tracer to keep one gateway's telemetry apart (tests do).
///
/// Every metric's dimensions are low-cardinality: provider kind, instance, operation, outcome code, status
/// class. A card id, customer, amount or any value from a request never becomes a label or a span attribute.
/// The names are listed in docs/OBSERVABILITY.md.
public struct GatewayObservability: Sendable {
    public var metrics: any MetricsFactory
    public var tracer: any Tracer { didSet { tracesNothing = tracer is NoOpTracer } }
    /// Whether `tracer` is the no-op one (nothing bootstrapped), whose spans record nothing and only carry their
    /// parent's context on: then ``span(_:ofKind:_:)`` opens none.
    private(set) var tracesNothing: Bool

    public init(metrics: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil) {
        self.metrics = metrics ?? MetricsSystem.factory
        self.tracer = tracer ?? InstrumentationSystem.tracer
        self.tracesNothing = self.tracer is NoOpTracer
    }

    /// Runs `body` in a span named `name` of `tracer`, or, with the no-op tracer, at once with no span: no name
    /// built, no task-local context bound (the no-op span's context is its parent's, so code in `body` sees the
    /// same trace context either way), and none of the frames `withSpan` takes. Once per gateway operation and
    /// per provider attempt, this was about a sixth of a call that does nothing else.
    @inline(__always)
    func span<T>(
        _ name: @autoclosure () -> String, ofKind kind: SpanKind, _ body: ((any Span)?) async throws -> T
    ) async throws -> T {
        if tracesNothing { return try await body(nil) }
        return try await tracer.withSpan(name(), ofKind: kind) { span in try await body(span) }
    }

    /// What the program bootstrapped (nothing, until it does).
    public static var bootstrapped: GatewayObservability { GatewayObservability() }

    // MARK: Names

    /// Metric names, in one place.
    public enum Names {
        /// Timer: one gateway operation, routing to answer. Dimensions: kind, instance, operation, outcome.
        public static let operationDuration = "cardgateway.operation.duration"
        /// Counter: gateway operations. Dimensions: kind, instance, operation, outcome.
        public static let operations = "cardgateway.operations"
        /// Timer: one HTTP attempt to a provider. Dimensions: kind, instance, status class.
        public static let attemptDuration = "cardgateway.provider.attempt.duration"
        /// Counter: HTTP attempts to providers. Dimensions: kind, instance, status class.
        public static let attempts = "cardgateway.provider.attempts"
        /// Counter: attempts after the first of a request. Dimensions: kind, instance.
        public static let retries = "cardgateway.provider.retries"
        /// Gauge: 0 closed, 1 half-open, 2 open. Dimensions: kind, instance.
        public static let breakerState = "cardgateway.breaker.state"
        /// Counter: breaker changes of state. Dimensions: kind, instance, to.
        public static let breakerTransitions = "cardgateway.breaker.transitions"
        /// Gauge: requests in flight (the bulkhead's slots in use). Dimensions: kind, instance.
        public static let inFlight = "cardgateway.provider.in_flight"
        /// Gauge: calls waiting for a bulkhead slot. Dimensions: kind, instance.
        public static let bulkheadWaiting = "cardgateway.provider.bulkhead.waiting"
        /// Timer: how long an attempt waited for a bulkhead slot (0 when one was free). Dimensions: kind, instance,
        /// outcome (`acquired`, `expired`, `full`, `cancelled`).
        public static let bulkheadWait = "cardgateway.provider.bulkhead.wait"
        /// Counter: webhook verifications. Dimensions: kind, instance, outcome.
        public static let webhooks = "cardgateway.webhook.verifications"
        /// Counter: real-time authorizations answered. Dimensions: kind, instance, outcome (`approved`, `declined`,
        /// `rejected` for a delivery not authentic or unreadable, `failed`), decided by (`decider`, `rules`,
        /// `standIn`, `acknowledgement`, `none`).
        public static let authorizations = "cardgateway.authorizations"
        /// Timer: from reading an authorization request to its answer. Dimensions: kind, instance, decided by.
        public static let authorizationDuration = "cardgateway.authorization.duration"
        /// Counter: authorizations the gateway answered with the instance's stand-in. Dimensions: kind, instance.
        public static let authorizationStandIns = "cardgateway.authorization.stand_ins"
    }

    /// Dimension keys.
    public enum Dimensions {
        public static let kind = "provider.kind"
        public static let instance = "provider.instance"
        public static let operation = "operation"
        public static let outcome = "outcome"
        public static let statusClass = "http.status_class"
        public static let to = "to"
        /// Who decided a real-time authorization.
        public static let decidedBy = "decided_by"
    }

    /// `success`, or the error's normalised code.
    static func outcome(of error: (any Error)?) -> String {
        guard let error else { return "success" }
        if error is CancellationError { return "cancelled" }
        return (error as? CardGatewayError)?.code.rawValue ?? "error"
    }

    /// "2xx" … "5xx" for a status; the transport failure's kind otherwise.
    static func statusClass(_ status: Int) -> String { statusClasses[min(max(status / 100, 1), 5) - 1] }

    private static let statusClasses = ["1xx", "2xx", "3xx", "4xx", "5xx"]
}

/// A timer and a counter per set of dimension values, made on first use and kept, as swift-metrics expects of metric
/// objects.
/// The keys are the metrics' low-cardinality dimension values, so the cache stays small.
final class MetricCache: Sendable {
    struct Key: Hashable, Sendable {
        var first: String
        var second: String
        var third: String
    }

    private let factory: any MetricsFactory
    private let timerLabel: String
    private let counterLabel: String
    private let entries = Mutex<[Key: (timer: CoreMetrics.Timer, counter: CoreMetrics.Counter)]>([:])

    init(factory: any MetricsFactory, timerLabel: String, counterLabel: String) {
        self.factory = factory
        self.timerLabel = timerLabel
        self.counterLabel = counterLabel
    }

    /// The timer and counter for `key`, made with `dimensions()` the first time.
    func metrics(
        _ key: Key, dimensions: () -> [(String, String)]
    ) -> (timer: CoreMetrics.Timer, counter: CoreMetrics.Counter) {
        if let found = entries.withLock({ $0[key] }) { return found }
        let dimensions = dimensions()
        let made = (
            timer: CoreMetrics.Timer(label: timerLabel, dimensions: dimensions, factory: factory),
            counter: Counter(label: counterLabel, dimensions: dimensions, factory: factory)
        )
        return entries.withLock { entries in
            if let found = entries[key] { return found }
            entries[key] = made
            return made
        }
    }
}

/// Writes a trace context into a provider request's headers (W3C `traceparent` with an OpenTelemetry tracer).
struct HTTPFieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        guard let name = HTTPField.Name(key), HeaderValues.isSafe(value) else { return }
        carrier[name] = value
    }
}

/// Per attempt: a client span in OpenTelemetry's HTTP conventions, and the attempt's timer and counters.
struct AttemptTelemetryMiddleware: ProviderMiddleware {
    let observability: GatewayObservability
    /// Whether the attempt's trace context goes to the provider in its headers (the instance's
    /// `propagateTraceContext`; off by default: providers do not need our trace ids).
    var propagatesTraceContext = false
    /// The attempt timer and counter per kind, instance and status class.
    private let metrics: MetricCache

    init(observability: GatewayObservability, propagatesTraceContext: Bool = false) {
        self.observability = observability
        self.propagatesTraceContext = propagatesTraceContext
        self.metrics = MetricCache(
            factory: observability.metrics, timerLabel: GatewayObservability.Names.attemptDuration,
            counterLabel: GatewayObservability.Names.attempts
        )
    }

    func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        if context.attempt > 1 {
            let base = [
                (GatewayObservability.Dimensions.kind, context.kind.name),
                (GatewayObservability.Dimensions.instance, context.instance),
            ]
            Counter(label: GatewayObservability.Names.retries, dimensions: base, factory: observability.metrics)
                .increment()
        }
        let started = ContinuousClock.now
        // The span's name is the method and the adapter's operation name, never the path: paths carry ids.
        return try await observability.span("\(request.method.rawValue) \(request.operation)", ofKind: .client) {
            span in
            // A span that records nothing (the no-op tracer's) is not given attributes it would throw away.
            if let span, span.isRecording {
                span.attributes["http.request.method"] = request.method.rawValue
                span.attributes["server.address"] = context.baseURL.host ?? ""
                if let port = context.baseURL.port { span.attributes["server.port"] = port }
                span.attributes["http.request.resend_count"] = context.attempt - 1
                span.attributes["cardgateway.provider.instance"] = context.instance
                span.attributes["cardgateway.provider.kind"] = context.kind.name
            }
            var request = request
            if propagatesTraceContext, let span {
                observability.tracer.inject(span.context, into: &request.headers, using: HTTPFieldsInjector())
            }
            var statusClass = "error"
            defer {
                let key = MetricCache.Key(first: context.kind.name, second: context.instance, third: statusClass)
                let (timer, counter) = metrics.metrics(key) {
                    [
                        (GatewayObservability.Dimensions.kind, context.kind.name),
                        (GatewayObservability.Dimensions.instance, context.instance),
                        (GatewayObservability.Dimensions.statusClass, statusClass),
                    ]
                }
                timer.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
                counter.increment()
            }
            do {
                let response = try await next(request, context)
                statusClass = GatewayObservability.statusClass(response.status)
                if let span, span.isRecording { span.attributes["http.response.status_code"] = response.status }
                if response.status >= 500 { span?.setStatus(SpanStatus(code: .error)) }
                return response
            } catch let error as TransportError {
                statusClass = error.kind.rawValue
                if let span, span.isRecording { span.attributes["error.type"] = error.kind.rawValue }
                span?.setStatus(SpanStatus(code: .error))
                throw error
            } catch let error as CardGatewayError {
                statusClass = error.code.rawValue
                if let span, span.isRecording { span.attributes["error.type"] = error.code.rawValue }
                span?.setStatus(SpanStatus(code: .error))
                throw error
            }
        }
    }
}
