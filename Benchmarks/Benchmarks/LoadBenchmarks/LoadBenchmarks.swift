import Benchmark
import CardGateway
import Foundation
import ProviderFixtures

// `load/<kind>/<callers>`: 64, 256 and 1,024 callers at once, each calling again as soon as its call returns,
// against the provider's simulator on 127.0.0.1 answering every request after 100 ms (the simulation kit's `delay`
// fault). In one run: bare AsyncHTTPClient requests on a client of their own whose pool does not limit them (the
// baseline), and the same call through `CardGateway` with every default (the shared client; 1,024 requests in
// flight per instance and a line of 1,024). Above `Bulkhead.defaultLimit` callers (none of the levels here since
// issue 39 raised it from 256), the gateway with `maxConcurrentRequests` set to the number of callers runs too. Each side runs 1 s unmeasured, then 3 s measured. The custom metrics are the ratios
// gateway ÷ bare (in thousandths), the calls a second, and the live heap per call in flight; the full report is
// printed too. The simulator runs in this process, so both sides share the 2 cores with it.

let callerCounts = [64, 256, 1_024]

extension BenchmarkMetric {
    static let gatewayCallsPerSecond = BenchmarkMetric.custom(
        "gateway calls/s", polarity: .prefersLarger, useScalingFactor: false)
    static let bareCallsPerSecond = BenchmarkMetric.custom(
        "bare calls/s", polarity: .prefersLarger, useScalingFactor: false)
    static let throughputRatio = BenchmarkMetric.custom(
        "throughput ratio ‰", polarity: .prefersLarger, useScalingFactor: false)
    static let p50Ratio = BenchmarkMetric.custom("p50 ratio ‰", polarity: .prefersSmaller, useScalingFactor: false)
    static let p99Ratio = BenchmarkMetric.custom("p99 ratio ‰", polarity: .prefersSmaller, useScalingFactor: false)
    static let sizedThroughputRatio = BenchmarkMetric.custom(
        "sized throughput ratio ‰", polarity: .prefersLarger, useScalingFactor: false)
    static let sizedP99Ratio = BenchmarkMetric.custom(
        "sized p99 ratio ‰", polarity: .prefersSmaller, useScalingFactor: false)
    static let gatewayHeapPerCall = BenchmarkMetric.custom(
        "gateway heap B/call in flight", polarity: .prefersSmaller, useScalingFactor: false)
    static let bareHeapPerCall = BenchmarkMetric.custom(
        "bare heap B/call in flight", polarity: .prefersSmaller, useScalingFactor: false)
}

let benchmarks: @Sendable () -> Void = {
    for kind in ProviderSubject.liveKinds {
        for callers in callerCounts {
            loadBenchmark(kind: kind, callers: callers)
        }
    }
}

func loadBenchmark(kind: String, callers: Int) {
    Benchmark(
        "load/\(kind)/\(callers)",
        configuration: .init(
            metrics: [
                .gatewayCallsPerSecond, .bareCallsPerSecond, .throughputRatio, .p50Ratio, .p99Ratio,
                .sizedThroughputRatio, .sizedP99Ratio,
                .gatewayHeapPerCall, .bareHeapPerCall,
            ],
            warmupIterations: 0,
            scalingFactor: .one,
            maxDuration: .seconds(1),
            maxIterations: 1
        )
    ) { benchmark in
        do {
            let fixture = try await LoadFixtures.shared.fixture(kind)
            let report = try await fixture.report(callers: callers)
            print(report.text)
            benchmark.measurement(.gatewayCallsPerSecond, Int(report.gateway.callsPerSecond.rounded()))
            benchmark.measurement(.bareCallsPerSecond, Int(report.direct.callsPerSecond.rounded()))
            benchmark.measurement(.throughputRatio, Int((report.throughputRatio(report.gateway) * 1000).rounded()))
            benchmark.measurement(.p50Ratio, Int((report.p50Ratio(report.gateway) * 1000).rounded()))
            benchmark.measurement(.p99Ratio, Int((report.p99Ratio(report.gateway) * 1000).rounded()))
            if let sized = report.sized {
                benchmark.measurement(.sizedThroughputRatio, Int((report.throughputRatio(sized) * 1000).rounded()))
                benchmark.measurement(.sizedP99Ratio, Int((report.p99Ratio(sized) * 1000).rounded()))
            }
            if let heap = report.gateway.heapBytesPerCall {
                benchmark.measurement(.gatewayHeapPerCall, Int(heap.rounded()))
            }
            if let heap = report.direct.heapBytesPerCall {
                benchmark.measurement(.bareHeapPerCall, Int(heap.rounded()))
            }
        } catch {
            benchmark.error("load/\(kind)/\(callers) failed: \(error)")
        }
    }
}
