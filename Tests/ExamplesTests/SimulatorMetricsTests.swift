import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import ExampleSupport
import Foundation
import InMemoryTracing
import MetricsTestKit
import SharedTestSupport
import StripeSimulator
import Testing

/// Exact metric values after scripted runs against the Stripe simulator: a success, a retry, a timeout and a
/// breaker opening, each driven by the simulator's fault injection.
@Suite("Metrics against a simulator", .timeLimit(.minutes(5)))
struct SimulatorMetricsTests {
    @Test("success, retry, timeout, breaker opening: the counters, the breaker gauge and what reached the simulator")
    func scriptedRun() async throws {
        try await EmbeddedSimulators().run { running in
            let instance = EmbeddedSimulators.Instance.stripe
            let metrics = TestMetrics()
            // Two gateways over one metrics factory: a generous timeout for the success and the retry, so a loaded
            // machine cannot turn them into timeouts, and a short one for the timeout phase, whose answers are
            // delayed well past it. Both have a fresh breaker of the same settings.
            func makeGateway(timeout: Duration) throws -> CardGateway {
                var configuration = try running.configuration()
                configuration.providers[instance]?.timeout = timeout
                configuration.providers[instance]?.retry = RetryPolicy(
                    maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))
                configuration.providers[instance]?.circuitBreaker = CircuitBreakerSettings(
                    failureThreshold: 3, coolDown: .seconds(60))
                return try CardGateway(
                    configuration: configuration, registry: ExampleRegistry.all,
                    observability: GatewayObservability(metrics: metrics, tracer: InMemoryTracer())
                )
            }
            var gateway = try makeGateway(timeout: .seconds(30))
            let stripe = try #require(running.handle("stripe"))
            let card = CardRef(id: StripeSimulator.Seed.activeCardID)
            let base = [("provider.kind", "stripe"), ("provider.instance", instance)]
            func count(_ label: String, _ extra: [(String, String)] = []) -> Int64 {
                (try? metrics.expectCounter(label, base + extra).totalValue) ?? 0
            }
            func reads() -> Int {
                stripe.journal.entries().filter { $0.method == "GET" && $0.path.contains(card.id) }.count
            }

            // A success.
            _ = try await gateway.card(card, via: .instance(instance))
            #expect(count("cardgateway.operations", [("operation", "card"), ("outcome", "success")]) == 1)
            #expect(count("cardgateway.provider.attempts", [("http.status_class", "2xx")]) == 1)

            // A retry: one 503, then the answer.
            stripe.faults.inject(
                FaultRule(count: 1, method: "GET", action: .status(503, retryAfterSeconds: nil, message: "busy")))
            _ = try await gateway.card(card, via: .instance(instance))
            #expect(count("cardgateway.operations", [("operation", "card"), ("outcome", "success")]) == 2)
            #expect(count("cardgateway.provider.attempts", [("http.status_class", "5xx")]) == 1)
            #expect(count("cardgateway.provider.attempts", [("http.status_class", "2xx")]) == 2)
            #expect(count("cardgateway.provider.retries") == 1)

            // A timeout: three attempts each slower than the 2 s timeout; the third failure opens the breaker.
            gateway = try makeGateway(timeout: .seconds(2))
            stripe.faults.inject(FaultRule(count: 3, method: "GET", action: .delay(milliseconds: 6_000)))
            let timedOut = await gatewayError { _ = try await gateway.card(card, via: .instance(instance)) }
            #expect(timedOut?.code == .timeout)
            #expect(count("cardgateway.operations", [("operation", "card"), ("outcome", "timeout")]) == 1)
            #expect(count("cardgateway.provider.attempts", [("http.status_class", "timeout")]) == 3)
            #expect(count("cardgateway.provider.retries") == 3)
            #expect(count("cardgateway.breaker.transitions", [("to", "open")]) == 1)
            #expect(try metrics.expectGauge("cardgateway.breaker.state", base).lastValue == 2)

            // The breaker is open: the next call is refused and never reaches the simulator.
            let before = reads()
            let refused = await gatewayError { _ = try await gateway.card(card, via: .instance(instance)) }
            #expect(refused?.code == .providerUnavailable)
            #expect(reads() == before)
            #expect(count("cardgateway.operations", [("operation", "card"), ("outcome", "providerUnavailable")]) == 1)
            #expect(
                count("cardgateway.provider.attempts", [("http.status_class", "providerUnavailable")]) == 0,
                "a refused call is no attempt")
        }
    }
}
