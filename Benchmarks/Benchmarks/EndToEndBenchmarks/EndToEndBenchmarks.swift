import Benchmark
import BenchmarkSupport
import CardGateway
import ProviderFixtures

// `e2e/<kind>/gateway` and `e2e/<kind>/direct`: the same request to the provider's simulator on 127.0.0.1 (run in
// this process, so both include the simulator's own work), once through `CardGateway` with every default
// (routing, circuit breaker, bulkhead, telemetry with the no-op metrics and tracer, no logger; the default
// `AsyncHTTPClientTransport`) and once as a bare AsyncHTTPClient request on the same client with the body and
// headers the gateway sent, prebuilt. gateway ÷ direct is the gateway's overhead on loopback. The operation is
// the card lookup; Trust Payments, which has none, its charge. All seven providers (Marqeta and Lithic too).

let benchmarks: @Sendable () -> Void = {
    for kind in ProviderSubject.liveKinds {
        endToEndBenchmark(kind: kind, direct: false)
        endToEndBenchmark(kind: kind, direct: true)
    }
}

func endToEndBenchmark(kind: String, direct: Bool) {
    Benchmark(
        "e2e/\(kind)/\(direct ? "direct" : "gateway")",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal],
            warmupIterations: 50,
            scalingFactor: .one,
            maxDuration: .seconds(2),
            maxIterations: 5_000,
            thresholds: [
                // The count includes the simulator's and NIO's work, which varies by a few between runs.
                .mallocCountTotal: .init(relative: [.p50: 5], absolute: [:]),
                .wallClock: .init(relative: [.p50: 100], absolute: [:]),
            ],
            setup: { _ = try await LiveFixtures.shared.entry(kind) }
        ).callgrindAware
    ) { benchmark in
        let entry: LiveFixtures.Entry
        do { entry = try await LiveFixtures.shared.entry(kind) } catch {
            benchmark.error("setup failed: \(error)")
            return
        }
        let context = OperationContext()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            do {
                try await callgrindMeasuredAsync {
                    if direct {
                        blackHole(try await entry.sendDirect())
                    } else {
                        try await entry.subject.throughGateway(entry.gateway, entry.subject.target, context)
                    }
                }
            } catch {
                benchmark.error("e2e/\(kind) failed: \(error)")
                return
            }
        }
        benchmark.stopMeasurement()
    }
}
