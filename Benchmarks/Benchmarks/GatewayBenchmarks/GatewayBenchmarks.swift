import Benchmark
import BenchmarkSupport
import CardGateway
import ProviderFixtures

// `gateway/<kind>/<operation>`: one call through the whole gateway (`CardGateway.card(_:via:)`; Trust Payments,
// which has no card lookup: `charge`) with every default (routing over three routes, the circuit breaker, the
// bulkhead, attempt telemetry and operation metrics with the bootstrapped no-op metrics and tracer, no logger),
// over an in-process transport that replays the answers the provider's simulator gave at setup. What remains
// is the gateway's and the adapter's own cost: no sockets, no server.

let benchmarks: @Sendable () -> Void = {
    for kind in ProviderSubject.kinds {
        gatewayBenchmark(kind: kind)
    }
}

func gatewayBenchmark(kind: String) {
    let operation = kind == "trustpayments" ? "charge" : "card"
    Benchmark(
        "gateway/\(kind)/\(operation)",
        // Regression guards only: the targets (≤ 10 µs, ≤ 40 allocations) are not met yet (README.md,
        // "Benchmarks").
        configuration: .regressionGuarded(
            warmupIterations: 100, maxDuration: .seconds(1), maxIterations: 20_000,
            setup: { _ = try await ReplayFixtures.shared.entry(kind) }
        )
    ) { benchmark in
        let entry: ReplayFixtures.Entry
        do { entry = try await ReplayFixtures.shared.entry(kind) } catch {
            benchmark.error("setup failed: \(error)")
            return
        }
        let gateway = entry.gateway
        let target = entry.subject.target
        let call = entry.subject.throughGateway
        let context = OperationContext()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            do {
                try await callgrindMeasuredAsync { try await call(gateway, target, context) }
            } catch {
                benchmark.error("gateway/\(kind)/\(operation) failed: \(error)")
                return
            }
        }
        benchmark.stopMeasurement()
    }
}
