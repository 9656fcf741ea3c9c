import CardGateway
import CardGatewayTesting
import Foundation
import InMemoryTracing
import MetricsTestKit
import SharedTestSupport
import Testing
import Tracing

@Suite("Metrics and traces", .timeLimit(.minutes(5)))
struct ObservabilityTests {
    static func gateway(
        _ transport: any HTTPTransport, metrics: TestMetrics, tracer: InMemoryTracer, extra: String = ""
    ) throws -> CardGateway {
        let registry = ProviderRegistry([HTTPProbeProvider.factory])
        let document = """
            {"providers": {"eu": {"kind": "probe", "baseURL": "https://eu.probe.example/v1", "credentials": {"apiKey": "literal:probe-secret-key"},
                                  "maxAttempts": 3 \(extra)}},
             "routes": []}
            """
        let configuration = try GatewayConfiguration.load(from: Data(document.utf8), registry: registry)
        return try CardGateway(
            configuration: configuration, registry: registry, transport: transport,
            observability: GatewayObservability(metrics: metrics, tracer: tracer)
        )
    }

    static let base = [("provider.kind", "probe"), ("provider.instance", "eu")]

    @Test("a success and a retried read: exact operation, attempt and retry counts, and the span tree")
    func successAndRetry() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport([.json(200, "{}"), .json(503, "{}"), .json(200, "{}")])
        let gateway = try Self.gateway(transport, metrics: metrics, tracer: tracer)
        _ = try await gateway.card(CardRef(id: "card-1"), via: .instance("eu"))
        _ = try await gateway.card(CardRef(id: "card-2"), via: .instance("eu"))

        let operationDimensions = Self.base + [("operation", "card"), ("outcome", "success")]
        #expect(try metrics.expectCounter("cardgateway.operations", operationDimensions).totalValue == 2)
        #expect(try metrics.expectTimer("cardgateway.operation.duration", operationDimensions).values.count == 2)
        #expect(
            try metrics.expectCounter("cardgateway.provider.attempts", Self.base + [("http.status_class", "2xx")])
                .totalValue == 2)
        #expect(
            try metrics.expectCounter("cardgateway.provider.attempts", Self.base + [("http.status_class", "5xx")])
                .totalValue == 1)
        #expect(
            try metrics.expectTimer("cardgateway.provider.attempt.duration", Self.base + [("http.status_class", "2xx")])
                .values.count == 2)
        #expect(try metrics.expectCounter("cardgateway.provider.retries", Self.base).totalValue == 1)
        #expect(try metrics.expectGauge("cardgateway.breaker.state", Self.base).lastValue == 0)
        #expect(try metrics.expectGauge("cardgateway.provider.in_flight", Self.base).lastValue == 0)

        // One operation span per call, with one client span per attempt under it.
        let spans = tracer.finishedSpans
        let operations = spans.filter { $0.operationName == "cardgateway.card" }
        #expect(operations.count == 2)
        let second = try #require(operations.last)
        let attempts = spans.filter { $0.parentSpanID == second.spanID }
        #expect(attempts.map(\.operationName) == ["GET get card", "GET get card"])
        #expect(attempts.map { $0.kind } == [.client, .client])
        #expect(
            attempts.compactMap { $0.attributes["http.response.status_code"]?.toSpanAttribute() } == [
                .int64(503), .int64(200),
            ])
        #expect(
            attempts.compactMap { $0.attributes["http.request.resend_count"]?.toSpanAttribute() } == [
                .int64(0), .int64(1),
            ])
        #expect(attempts.first?.attributes["server.address"]?.toSpanAttribute() == .string("eu.probe.example"))
        #expect(attempts.first?.attributes["http.request.method"]?.toSpanAttribute() == .string("GET"))
        #expect(second.attributes["cardgateway.outcome"]?.toSpanAttribute() == .string("success"))
        #expect(second.attributes["cardgateway.provider.instance"]?.toSpanAttribute() == .string("eu"))
        #expect(Set(attempts.map(\.traceID)) == [second.traceID])
    }

    @Test("a timeout and a breaker opening: the outcome codes, the breaker gauge and its transitions")
    func timeoutAndBreaker() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport([], fallback: .failure(TransportError(.timeout, "no response in time")))
        let gateway = try Self.gateway(
            transport, metrics: metrics, tracer: tracer,
            extra: #", "circuitBreaker": {"failureThreshold": 3, "coolDownSeconds": 60}"#)
        let first = await gatewayError { _ = try await gateway.card(CardRef(id: "card-1"), via: .instance("eu")) }
        #expect(first?.code == .timeout)
        let second = await gatewayError { _ = try await gateway.card(CardRef(id: "card-1"), via: .instance("eu")) }
        #expect(second?.code == .providerUnavailable, "three timed-out attempts opened the breaker")

        #expect(
            try metrics.expectCounter(
                "cardgateway.operations", Self.base + [("operation", "card"), ("outcome", "timeout")]
            ).totalValue == 1)
        #expect(
            try metrics.expectCounter(
                "cardgateway.operations", Self.base + [("operation", "card"), ("outcome", "providerUnavailable")]
            ).totalValue == 1)
        #expect(
            try metrics.expectCounter("cardgateway.provider.attempts", Self.base + [("http.status_class", "timeout")])
                .totalValue == 3)
        #expect(try metrics.expectCounter("cardgateway.provider.retries", Self.base).totalValue == 2)
        #expect(try metrics.expectGauge("cardgateway.breaker.state", Self.base).lastValue == 2)
        #expect(
            try metrics.expectCounter("cardgateway.breaker.transitions", Self.base + [("to", "open")]).totalValue == 1)
        #expect(transport.requestCount == 3)

        let failed = tracer.finishedSpans.filter { $0.operationName == "cardgateway.card" }
        #expect(failed.count == 2)
        #expect(failed.allSatisfy { !$0.errors.isEmpty }, "errors are recorded on the operation span")
        #expect(failed.first?.attributes["cardgateway.outcome"]?.toSpanAttribute() == .string("timeout"))
    }

    @Test(
        "the bulkhead's metrics: slots in use, calls in line, and each attempt's wait for a slot by outcome",
        .timeLimit(.minutes(1)))
    func bulkheadMetrics() async throws {
        // Through the gateway: a call that finds a slot free records a zero wait; one refused by a full line, `full`.
        let metrics = TestMetrics()
        let transport = GateTransport()
        let gateway = try Self.gateway(
            transport, metrics: metrics, tracer: InMemoryTracer(),
            extra: #", "maxConcurrentRequests": 1, "maxWaitingRequests": 0"#)
        let first = Task { try await gateway.card(CardRef(id: "a"), via: .instance("eu")) }
        await transport.arrivals.until(1)
        #expect(try metrics.expectGauge("cardgateway.provider.in_flight", Self.base).lastValue == 1)
        let refused = await gatewayError { _ = try await gateway.card(CardRef(id: "b"), via: .instance("eu")) }
        #expect(refused?.code == .providerUnavailable)
        transport.open()
        _ = try await first.value
        #expect(
            try metrics.expectTimer("cardgateway.provider.bulkhead.wait", Self.base + [("outcome", "acquired")]).values
                == [0])
        #expect(
            try metrics.expectTimer("cardgateway.provider.bulkhead.wait", Self.base + [("outcome", "full")]).values == [
                0
            ])
        #expect(
            try metrics.expectTimer("cardgateway.provider.bulkhead.wait", Self.base + [("outcome", "expired")]).values
                .isEmpty)
        #expect(try metrics.expectGauge("cardgateway.provider.in_flight", Self.base).lastValue == 0)
        #expect(try metrics.expectGauge("cardgateway.provider.bulkhead.waiting", Self.base).lastValue == 0)

        // A wait measured on the bulkhead's clock: 250 ms in line, then a slot.
        let clocked = TestMetrics()
        let clock = ManualClock()
        let line = CountWatch()
        let recording = GatewayObservability.bulkheadObserver(dimensions: Self.base, factory: clocked)
        let bulkhead = Bulkhead(
            instance: "eu", limit: 1, clock: clock.gatewayClock(),
            observer: .init(
                inFlightChanged: recording.inFlightChanged,
                waitingChanged: {
                    recording.waitingChanged($0); line.set($0)
                }, waited: recording.waited
            )
        )
        try await bulkhead.acquire(until: clock.now + .seconds(30))
        let waiter = Task { try await bulkhead.acquire(until: clock.now + .seconds(30)) }
        await line.until(1)
        #expect(try clocked.expectGauge("cardgateway.provider.bulkhead.waiting", Self.base).lastValue == 1)
        clock.advance(by: .milliseconds(250))
        bulkhead.release()
        try await waiter.value
        #expect(
            try clocked.expectTimer("cardgateway.provider.bulkhead.wait", Self.base + [("outcome", "acquired")]).values
                == [0, 250_000_000])
        #expect(try clocked.expectGauge("cardgateway.provider.bulkhead.waiting", Self.base).lastValue == 0)
        #expect(
            try clocked.expectGauge("cardgateway.provider.in_flight", Self.base).lastValue == 1,
            "the slot passed straight to the waiter")
        bulkhead.release()
        #expect(try clocked.expectGauge("cardgateway.provider.in_flight", Self.base).lastValue == 0)
    }

    @Test("no span attribute and no metric label carries the card id, the key or a body")
    func nothingSensitive() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport([.json(200, #"{"pan":"4111111111111111"}"#)])
        let gateway = try Self.gateway(transport, metrics: metrics, tracer: tracer)
        _ = try await gateway.card(CardRef(id: "card-secret-id-77"), via: .instance("eu"))
        var seen: [String] = []
        for span in tracer.finishedSpans {
            seen.append(span.operationName)
            span.attributes.forEach { key, value in seen.append("\(key)=\(value)") }
        }
        for counter in metrics.counters {
            seen.append(counter.label + counter.dimensions.map { "\($0)=\($1)" }.joined())
        }
        let text = seen.joined(separator: "\n")
        #expect(!text.isEmpty)
        for secret in ["card-secret-id-77", "probe-secret-key", "4111111111111111", "/cards/"] {
            #expect(!text.contains(secret), "\(secret) leaked into telemetry")
        }
    }
}

@Suite("Trace context to providers", .timeLimit(.minutes(5)))
struct TraceContextTests {
    @Test(
        "off by default: nothing is injected; propagateTraceContext: true puts the attempt's context in the request headers"
    )
    func propagation() async throws {
        for propagate in [false, true] {
            let tracer = InMemoryTracer()
            let transport = ScriptedTransport([], fallback: .json(200, "{}"))
            let gateway = try ObservabilityTests.gateway(
                transport, metrics: TestMetrics(), tracer: tracer,
                extra: propagate ? #", "propagateTraceContext": true"# : ""
            )
            _ = try await gateway.card(CardRef(id: "card-1"), via: .instance("eu"))
            let sent = try #require(transport.requests.first)
            let attempt = try #require(tracer.finishedSpans.first { $0.kind == .client })
            if propagate {
                #expect(sent.header(InMemoryTracer.spanIDKey) == attempt.spanID)
                #expect(sent.header(InMemoryTracer.traceIDKey) == attempt.traceID)
            } else {
                #expect(sent.header(InMemoryTracer.spanIDKey) == nil)
                #expect(tracer.performedContextInjections.isEmpty)
            }
        }
    }
}
