import Benchmark
import BenchmarkSupport
import CardGateway

// Router lookups on route tables with 10, 1 000 and 100 000 disjoint BIN ranges (plus a few issuer and program
// routes in front and a catch-all at the end), in two shapes:
//
// - "routes": one route per BIN range (the table a BIN sponsor export turns into), so the number of routes
//   grows with the number of ranges;
// - "ranges in one route": a single route listing every range, so only the BIN index grows.
//
// `Router.match(_:)` is documented as not growing with the number of BIN ranges; `explain(_:)` walks the routes
// in order and is expected to grow with the position of the matching route (its benchmark matches the middle one).

let benchmarks: @Sendable () -> Void = {
    let sizes = [10, 1_000, 100_000]

    for size in sizes {
        let perRoute = TableSlot(size: size, shape: .routePerRange)
        let oneRoute = TableSlot(size: size, shape: .oneRouteManyRanges)

        let label = size.tableLabel
        // The targets: ≤ 0.25 µs for 10 routes, ≤ 1 µs for 100k BIN ranges, no malloc (raw units: ns per 1 000).
        let matchTarget = size == 10 ? 250_000 : size == 100_000 ? 1_000_000 : nil
        perRoute.benchmark(
            "router/match-\(label)",
            matchTarget.map { makeLookupConfiguration(thresholds: targetThresholds(time: $0)) } ?? lookupConfiguration
        ) { $1.matchHits($0) }
        perRoute.benchmark("router/match-miss-\(label)", lookupConfiguration) { $1.matchMisses($0) }
        perRoute.benchmark("router/match-issuer-\(label)", lookupConfiguration) { $1.matchIssuer($0) }
        oneRoute.benchmark("router/match-one-route-\(label)", sizedConfiguration(size)) { $1.matchHits($0) }
        perRoute.benchmark("router/explain-middle-\(label)", sizedConfiguration(size)) { $1.explainMiddle($0) }
    }

    // Building the index (done once per configuration load / gateway start).
    for size in [1_000, 100_000] {
        let routes = Table.routes(size: size, shape: .routePerRange)
        Benchmark(
            "router/init-\(size.tableLabel)",
            configuration: Benchmark.Configuration(
                metrics: [.wallClock, .mallocCountTotal, .mallocBytesCount, .peakMemoryResident],
                warmupIterations: 1,
                scalingFactor: .one,
                maxDuration: .seconds(3),
                maxIterations: size > 10_000 ? 10 : 200,
                // 100k: the issue's ≤ 50 ms and ≤ 20 MB (as bytes allocated while building, an upper bound of what the
                // router keeps; peak resident memory is the whole process's, the table's routes included).
                thresholds: size > 10_000
                    ? targetThresholds(
                        time: 50_000_000,
                        extra: [
                            .mallocBytesCount: .init(relative: [.p50: 5], absolute: [.p90: 20_000_000]),
                            // Not exact here: dictionary growth depends on the per-process hash seed (313 to 349 seen).
                            .mallocCountTotal: .init(relative: [.p50: 15], absolute: [.p90: 50]),
                        ])
                    : timeAndAllocationThresholds.merging([
                        .peakMemoryResident: .init(relative: [.p50: 10], absolute: [:])
                    ]) { $1 }
            ).callgrindAware
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(callgrindMeasured { Router(routes: routes) })
            }
        }
    }
}

/// `callgrindMeasured` (which scripts/callgrind collects inside, by name) for one route lookup, its key passed as an
/// argument (borrowed): a closure capturing the key would copy it in and destroy the copy after.
@inline(never)
func callgrindMeasuredMatch(_ router: Router, _ key: RouteKey) -> RouteMatch? { router.match(key) }

/// Tolerances for `baseline check` / `thresholds check` (a deviation beyond them is reported as a regression).
/// Wall-clock medians moved by up to ~70% between runs on the shared 2-core VM this was written on, so only a
/// doubling counts; an algorithmic regression (a lookup turning linear) is a multiple of that. Allocation counts
/// are deterministic, so 5% more mallocs (one more per call for the small benchmarks) is a regression.
var timeAndAllocationThresholds: [BenchmarkMetric: BenchmarkThresholds] {
    [
        .wallClock: .init(relative: [.p50: 100], absolute: [:]),
        .mallocCountTotal: .init(relative: [.p50: 5], absolute: [:]),
    ]
}

var lookupConfiguration: Benchmark.Configuration { makeLookupConfiguration(thresholds: timeAndAllocationThresholds) }

func makeLookupConfiguration(thresholds: [BenchmarkMetric: BenchmarkThresholds]) -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .milliseconds(700),
        maxIterations: 10_000,
        thresholds: thresholds
    ).callgrindAware
}

/// For work that grows with the table (a reason built for one route of many ranges, `explain` walking every earlier
/// route): large sizes get fewer iterations.
func sizedConfiguration(_ size: Int) -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 1,
        scalingFactor: size >= 1_000 ? .one : .kilo,
        maxDuration: .milliseconds(700),
        maxIterations: size >= 100_000 ? 20 : 2_000,
        thresholds: timeAndAllocationThresholds
    ).callgrindAware
}

/// Builds a table before a benchmark runs and drops it afterwards (a 100k-route table is large, and package-benchmark
/// keeps every benchmark object, with any state it holds, until the process ends).
final class TableSlot: @unchecked Sendable {
    let size: Int
    let shape: Table.Shape
    private var table: Table?

    init(size: Int, shape: Table.Shape) {
        self.size = size
        self.shape = shape
    }

    func benchmark(
        _ name: String, _ configuration: Benchmark.Configuration, _ body: @escaping (Benchmark, Table) -> Void
    ) {
        Benchmark(
            name, configuration: configuration,
            closure: { benchmark in body(benchmark, self.table!) },
            setup: { self.table = Table(size: self.size, shape: self.shape) },
            teardown: { self.table = nil }
        )
    }
}

/// A route table with `size` disjoint 8-digit BIN ranges and keys that hit them.
final class Table: @unchecked Sendable {
    enum Shape: Sendable { case routePerRange, oneRouteManyRanges }

    static let issuerRoutes = 3
    /// Keys are drawn round-robin from this many precomputed ones, spread over the whole table.
    static let keyCount = 1_024

    let router: Router
    let hits: [RouteKey]
    let misses: [RouteKey]
    let issuerKey = RouteKey(issuer: "issuer-b", country: "DE")
    let middleKey: RouteKey
    /// The next key to use. It persists across calls of a benchmark's closure, so that a benchmark running one
    /// lookup per call still goes through every key. (Benchmarks run one at a time.)
    private var cursor = 0

    init(size: Int, shape: Shape) {
        router = Router(routes: Self.routes(size: size, shape: shape))
        let spacing = Self.spacing(size)
        var hits: [RouteKey] = []
        var misses: [RouteKey] = []
        for draw in 0..<Self.keyCount {
            let range = (draw * 7_919) % size  // a stride co-prime with the sizes, spread over the table
            let low = 40_000_000 + range * spacing
            // 16-digit card numbers: the 8-digit BIN, then eight more digits.
            hits.append(RouteKey(bin: "\(low + spacing / 4)12345678", country: "GB", currency: "GBP"))
            misses.append(RouteKey(bin: "\(low + spacing / 2 + spacing / 4)12345678", country: "GB", currency: "GBP"))
        }
        self.hits = hits
        self.misses = misses
        let middle = 40_000_000 + (size / 2) * spacing
        middleKey = RouteKey(bin: "\(middle + spacing / 4)12345678", country: "GB", currency: "GBP")
        // Sanity checks, so that a benchmark never silently measures the wrong path.
        let hit = router.match(hits[0])
        precondition(
            hit?.instance.hasPrefix("bin-") == true, "a BIN key must hit a BIN route, got \(String(describing: hit))")
        precondition(
            router.match(misses[0])?.instance == "default", "a key in a gap must fall through to the catch-all")
        precondition(router.match(issuerKey)?.instance == "issuer-b", "the issuer key must hit its route")
        precondition(
            shape == .oneRouteManyRanges || router.match(middleKey)?.routeIndex == Self.issuerRoutes + size / 2,
            "the middle key must hit the middle route")
    }

    /// Ranges `[low, low + spacing/2)` every `spacing`: disjoint, with a gap after each.
    static func spacing(_ size: Int) -> Int { 50_000_000 / size }

    static func routes(size: Int, shape: Shape) -> [Route] {
        let spacing = spacing(size)
        let ranges = (0..<size).map { index -> BINRange in
            let low = 40_000_000 + index * spacing
            return BINRange(low: String(low), high: String(low + spacing / 2 - 1))
        }
        var routes: [Route] = [
            Route(when: .init(issuers: ["issuer-a"]), use: "issuer-a"),
            Route(when: .init(programs: ["PROGRAM-1", "PROGRAM-2"]), use: "programs"),
            Route(when: .init(issuers: ["issuer-b"], countries: ["DE", "AT"]), use: "issuer-b"),
        ]
        switch shape {
        case .routePerRange:
            for (index, range) in ranges.enumerated() {
                routes.append(Route(when: .init(bins: [range]), use: "bin-\(index % 4)"))
            }
        case .oneRouteManyRanges:
            routes.append(Route(when: .init(bins: ranges), use: "bin-all"))
        }
        routes.append(Route(when: .init(), use: "default"))
        return routes
    }

    func matchHits(_ benchmark: Benchmark) { lookUp(hits, benchmark) }

    func matchMisses(_ benchmark: Benchmark) { lookUp(misses, benchmark) }

    /// A sample's calls look up the next eight keys in turn, each held in a local and passed as an argument. A key so
    /// passed is borrowed; read from the array on every call, or captured by a closure, it would be copied (its strings retained and released, about a
    /// third of a 10-route lookup's instructions), which is the harness's cost, not the router's: a caller builds its
    /// key and passes it. The copies of the eight are made once per sample (1 000 calls).
    private func lookUp(_ keys: [RouteKey], _ benchmark: Benchmark) {
        let router = router
        let first = cursor
        cursor = (cursor + 8) & (Self.keyCount - 1)
        let (k0, k1, k2, k3) = (keys[first], keys[first + 1], keys[first + 2], keys[first + 3])
        let (k4, k5, k6, k7) = (keys[first + 4], keys[first + 5], keys[first + 6], keys[first + 7])
        let calls = benchmark.scaledIterations.count
        for _ in 0..<calls / 8 {
            blackHole(callgrindMeasuredMatch(router, k0))
            blackHole(callgrindMeasuredMatch(router, k1))
            blackHole(callgrindMeasuredMatch(router, k2))
            blackHole(callgrindMeasuredMatch(router, k3))
            blackHole(callgrindMeasuredMatch(router, k4))
            blackHole(callgrindMeasuredMatch(router, k5))
            blackHole(callgrindMeasuredMatch(router, k6))
            blackHole(callgrindMeasuredMatch(router, k7))
        }
        for _ in 0..<calls % 8 { blackHole(callgrindMeasuredMatch(router, k0)) }
    }

    func matchIssuer(_ benchmark: Benchmark) {
        for _ in benchmark.scaledIterations {
            blackHole(callgrindMeasured { router.match(issuerKey) })
        }
    }

    /// `explain` walks every route before the match, so its key always matches the middle BIN route: the cost is
    /// the same for every sample (a regression check compares like with like).
    func explainMiddle(_ benchmark: Benchmark) {
        for _ in benchmark.scaledIterations {
            blackHole(callgrindMeasured { router.explain(middleKey) })
        }
    }
}

extension Int {
    /// The size part of a benchmark name: 10 → "10", 1000 → "1k-bins", 100000 → "100k-bins".
    var tableLabel: String { self >= 1_000 ? "\(countLabel)-bins" : "\(self)" }

    /// 100000 → "100k", 1000 → "1k".
    var countLabel: String { self >= 1_000 && self % 1_000 == 0 ? "\(self / 1_000)k" : "\(self)" }
}
