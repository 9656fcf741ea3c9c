// swift-tools-version: 6.2
import PackageDescription

// Performance benchmarks for CardGateway, run with package-benchmark (https://github.com/ordo-one/package-benchmark):
//
//     cd Benchmarks && swift package benchmark
//
// A separate package so that the root package gains no dependency on package-benchmark.
//
// Allocation metrics: with Swift 6.3+ package-benchmark counts mallocs through its malloc interposer (the
// "MallocInterposer" trait, enabled explicitly below); jemalloc is not used at all. Listing the trait explicitly
// also leaves out the default "RuntimeInterposer" trait, whose extra dependency is not needed here.
// BENCHMARK_DISABLE_JEMALLOC / BENCHMARK_DISABLE_MALLOC_INTERPOSER only change package-benchmark's *default*
// traits, so they have no effect with this explicit list.

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

func benchmarkTarget(_ name: String, dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "Benchmark", package: "benchmark")] + dependencies,
        path: "Benchmarks/\(name)",
        swiftSettings: swiftSettings,
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

let package = Package(
    name: "CardGatewayBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so that `package: "CardGateway"` works whatever the checkout directory is called.
        .package(name: "CardGateway", path: ".."),
        // Identity `benchmark` (the repository's current name; package-benchmark.git redirects to it).
        .package(url: "https://github.com/ordo-one/benchmark.git", exact: "1.38.1", traits: ["MallocInterposer"]),
        // Already in the graph through the root package (same URL and requirement); named here because the
        // in-process transport of GatewayBenchmarks implements `HTTPTransport`, whose API uses HTTPTypes.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        benchmarkTarget("RouterBenchmarks", dependencies: [.product(name: "CardGateway", package: "CardGateway")]),
        benchmarkTarget("ConfigurationBenchmarks", dependencies: [.product(name: "CardGateway", package: "CardGateway")]),
        benchmarkTarget("SecurityBenchmarks", dependencies: [.product(name: "CardGateway", package: "CardGateway")]),
        benchmarkTarget(
            "GatewayBenchmarks",
            dependencies: [
                .product(name: "CardGateway", package: "CardGateway"),
                .product(name: "CardGatewayAsyncHTTPClient", package: "CardGateway"),
                .product(name: "CardGatewaySimulation", package: "CardGateway"),
                .product(name: "CardGatewayStripe", package: "CardGateway"),
                .product(name: "StripeSimulator", package: "CardGateway"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The operation ledger's cost per write: in memory, and on PostgreSQL on loopback when
        // CARDGATEWAY_TEST_DATABASE_URL names a database (scripts/dev-postgres starts one).
        benchmarkTarget(
            "LedgerBenchmarks",
            dependencies: [
                .product(name: "CardGateway", package: "CardGateway"),
                .product(name: "CardGatewayPostgres", package: "CardGateway"),
                .product(name: "CardGatewayAsyncHTTPClient", package: "CardGateway"),
            ]
        ),
    ]
)
