import CardGateway
import ExampleSupport
import Foundation
import InMemoryTracing
import MetricsTestKit
import PaysafeSimulator
import StripeSimulator
import Testing
import Tracing
import TrustPaymentsSimulator

/// The whole demo (every provider, every flow) with telemetry recorded: the span tree of each provisioning call,
/// and a scan of every span attribute and metric label for secrets and card data.
@Suite("Telemetry over the demo", .timeLimit(.minutes(5)))
struct DemoTelemetryTests {
    @Test(
        "every provisioning call has its attempt spans under it; no attribute or label carries a secret, card data or an id"
    )
    func demoTelemetry() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let report = try await Demo.run(makeGateway: { running, logger in
            try running.gateway(logger: logger, observability: GatewayObservability(metrics: metrics, tracer: tracer))
        })
        #expect(report.passed, "\(report.failures)")

        let spans = tracer.finishedSpans
        let provisions = spans.filter { $0.operationName == "cardgateway.provision" }
        let instances = Set(
            provisions.compactMap { span -> String? in
                if case .string(let name)? = span.attributes["cardgateway.provider.instance"]?.toSpanAttribute() {
                    return name
                }
                return nil
            })
        #expect(instances.count >= 4, "provisioning spans for \(instances.sorted())")
        for provision in provisions {
            let children = spans.filter { $0.parentSpanID == provision.spanID }
            #expect(!children.isEmpty, "a provision span without attempt spans")
            #expect(children.allSatisfy { $0.kind == .client && $0.traceID == provision.traceID })
        }

        var recorded: [String] = []
        for span in spans {
            recorded.append(span.operationName)
            span.attributes.forEach { key, value in recorded.append("\(key)=\(value)") }
        }
        for counter in metrics.counters {
            recorded.append(counter.label + counter.dimensions.map { "\($0)=\($1)" }.joined(separator: ","))
        }
        let text = recorded.joined(separator: "\n")
        #expect(text.contains("operation=provision"))
        for secret in [
            PaysafeSimulator.Credentials.default.clientSecret, StripeSimulator.Credentials.default.testSecretKey,
            "ek_test_",
            TrustPaymentsSimulator.Seed.Card.visa, TrustPaymentsSimulator.Seed.jwtSecret, "eyJ", "ic_1Sim", "/cards/",
            "Bearer",
        ] {
            #expect(!text.contains(secret), "\(secret) reached telemetry")
        }
        #expect(
            try metrics.expectCounter(
                "cardgateway.operations",
                [
                    ("provider.kind", "stripe"), ("provider.instance", "us-issuing"), ("operation", "provision"),
                    ("outcome", "success"),
                ]
            ).totalValue >= 1)
    }
}
