import Benchmark

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Support for `scripts/callgrind`, which counts the instructions of one operation with valgrind's callgrind tool:
// the benchmark bodies run each operation inside `callgrindMeasured`, the script collects only inside that function
// (`--toggle-collect`), and runs the benchmark with N and 2N iterations (`CARDGATEWAY_CALLGRIND_ITERATIONS`), so
// that (instructions(2N) − instructions(N)) / N is one operation's cost, free of set-up, warm-up and the runner's own
// bookkeeping. Outside callgrind both are no-ops: the wrapper is one direct call.

/// Runs `body` and returns its result. Kept out of line (and in its own module) so that callgrind can find it by name.
@inline(never)
public func callgrindMeasured<Result>(_ body: () throws -> Result) rethrows -> Result {
    try body()
}

/// `callgrindMeasured` for asynchronous bodies.
@inline(never)
public func callgrindMeasuredAsync<Result>(_ body: () async throws -> Result) async rethrows -> Result {
    try await body()
}

extension Benchmark.Configuration {
    /// The configuration, or under `scripts/callgrind` (`CARDGATEWAY_CALLGRIND_ITERATIONS=N`): exactly N iterations of
    /// one operation each (scaling factor one), no warm-up and no time limit, so that the count is reproducible.
    public var callgrindAware: Benchmark.Configuration {
        guard let text = getenv("CARDGATEWAY_CALLGRIND_ITERATIONS"), let iterations = Int(String(cString: text)),
            iterations > 0
        else {
            return self
        }
        var configuration = self
        configuration.metrics = [.wallClock]
        configuration.warmupIterations = 0
        configuration.scalingFactor = .one
        configuration.maxIterations = iterations
        configuration.maxDuration = .seconds(86_400)
        configuration.thresholds = nil
        return configuration
    }
}

/// Tolerances for a benchmark with a target (issue 22), for both ways of checking:
///
/// - `swift package benchmark thresholds check` compares the p90 of a run with `Thresholds/<target>.<name>.p90.json`,
///   which holds `"wallClock": 0` and the expected malloc count: a p90 above `time` (the target itself, in the
///   benchmark's raw units: nanoseconds per sample, a sample being `scalingFactor` operations) or any other malloc
///   count fails the check;
/// - `swift package benchmark baseline check` compares two runs: the median time may double and the p90 move by the
///   whole target, the malloc counts must be equal.
public func targetThresholds(
    time: Int, extra: [BenchmarkMetric: BenchmarkThresholds] = [:]
) -> [BenchmarkMetric: BenchmarkThresholds] {
    [
        .wallClock: .init(relative: [.p50: 100], absolute: [.p90: time]),
        .mallocCountTotal: .init(relative: [.p50: 0], absolute: [.p90: 0]),
    ].merging(extra) { $1 }
}

extension Benchmark.Configuration {
    /// Wall clock and mallocs, with regression-only thresholds: allocation counts are deterministic, so growth over
    /// 5% at the median fails; wall-clock time on a shared 2-core VM is noisy, so only a doubling does. Callgrind-aware.
    public static func regressionGuarded(
        warmupIterations: Int, maxDuration: Duration, maxIterations: Int, scalingFactor: BenchmarkScalingFactor = .one,
        setup: Benchmark.BenchmarkSetupHook? = nil
    ) -> Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: [.wallClock, .mallocCountTotal],
            warmupIterations: warmupIterations,
            scalingFactor: scalingFactor,
            maxDuration: maxDuration,
            maxIterations: maxIterations,
            thresholds: [
                .mallocCountTotal: .init(relative: [.p50: 5], absolute: [:]),
                .wallClock: .init(relative: [.p50: 100], absolute: [:]),
            ],
            setup: setup
        ).callgrindAware
    }
}
