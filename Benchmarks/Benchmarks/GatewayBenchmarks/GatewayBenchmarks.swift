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
        // Regression guards only: the issue's ≤ 40 allocations hold for Stripe, Adyen and Bridge, not for Paysafe and
        // Trust Payments, and ≤ 10 µs for none (README.md, "Benchmarks").
        // A sample is 1 000 calls, so that what package-benchmark does around each sample (starting the body, hopping
        // to it and back, reading its counters: about 28 allocations and tens of microseconds) is spread over them
        // instead of being counted as the gateway's.
        configuration: .regressionGuarded(
            warmupIterations: 3, maxDuration: .seconds(2), maxIterations: 1_000, scalingFactor: .kilo,
            setup: { _ = try await ReplayFixtures.shared.entry(kind) }
        )
    ) { benchmark in
        let entry: ReplayFixtures.Entry
        do { entry = try await ReplayFixtures.shared.entry(kind) } catch {
            benchmark.error("setup failed: \(error)")
            return
        }
        benchmark.startMeasurement()
        do {
            try await gatewayCalls(entry, benchmark.scaledIterations.count)
        } catch {
            benchmark.error("gateway/\(kind)/\(operation) failed: \(error)")
            return
        }
        benchmark.stopMeasurement()
    }
}

/// The measured calls, in a nonisolated function: they run on the global executor, as a server's request tasks do.
/// Called one by one from the benchmark's body (which package-benchmark runs on the main actor), each call would
/// hop from the main thread to a worker thread and back, and the benchmark would time two thread wake-ups per call
/// (about 40 µs on the 2-core VM) that a server never pays.
nonisolated func gatewayCalls(_ entry: ReplayFixtures.Entry, _ count: Int) async throws {
    let gateway = entry.gateway
    let target = entry.subject.target
    let call = entry.subject.throughGateway
    let context = OperationContext()
    for _ in 0..<count {
        try await callgrindMeasuredAsync { try await call(gateway, target, context) }
    }
}
