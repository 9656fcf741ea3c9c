import Benchmark
import BenchmarkSupport
@_spi(AdapterSupport) import CardGateway
import ProviderFixtures

// `adapter/<kind>/<operation>`: one operation of one adapter through its public API (request building, the bare
// `ProviderHTTPClient`, response parsing and mapping), over an in-process transport that replays the answers the
// provider's simulator gave when the operation was run once at setup. No sockets, no server, no gateway
// middlewares: the adapter's own cost.

let benchmarks: @Sendable () -> Void = {
    for kind in ProviderSubject.kinds {
        for operation in ProviderSubject.operationNames(kind) {
            adapterBenchmark(kind: kind, operation: operation)
        }
    }
}

func adapterBenchmark(kind: String, operation: String) {
    Benchmark(
        "adapter/\(kind)/\(operation)",
        // A sample is 1 000 calls (as in GatewayBenchmarks): package-benchmark's own work around a sample is spread
        // over them instead of being counted as the adapter's.
        configuration: .regressionGuarded(
            warmupIterations: 2, maxDuration: .seconds(1), maxIterations: 1_000, scalingFactor: .kilo,
            setup: { _ = try await ReplayFixtures.shared.entry(kind) }
        )
    ) { benchmark in
        let entry: ReplayFixtures.Entry
        do { entry = try await ReplayFixtures.shared.entry(kind) } catch {
            benchmark.error("setup failed: \(error)")
            return
        }
        guard let adapter = entry.adapters[operation],
            let run = entry.subject.operations.first(where: { $0.name == operation })?.run
        else {
            benchmark.error("no adapter for \(operation)")
            return
        }
        let context = OperationContext()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            do {
                try await callgrindMeasuredAsync { try await run(adapter, context) }
            } catch {
                benchmark.error("adapter/\(kind)/\(operation) failed: \(error)")
                return
            }
        }
        benchmark.stopMeasurement()
    }
}
