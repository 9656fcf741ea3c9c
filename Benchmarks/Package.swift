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
        // Also already in the graph (same URL and requirement): EndToEndBenchmarks sends its bare requests with it.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Also already in the graph: JWTBenchmarks mints with jwt-kit next to the Trust Payments adapter.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        // Also already in the graph (same URLs and requirements): LedgerLoad runs the claim as it was before on a
        // leased connection, which takes a logger.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Also already in the graph: AuthorizationBenchmarks answers from a bare Hummingbird route beside the server.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
    ],
    targets: [
        benchmarkTarget(
            "RouterBenchmarks",
            dependencies: [.product(name: "CardGateway", package: "CardGateway"), "BenchmarkSupport"]),
        benchmarkTarget(
            "ConfigurationBenchmarks",
            dependencies: [.product(name: "CardGateway", package: "CardGateway"), "BenchmarkSupport"]),
        benchmarkTarget(
            "SecurityBenchmarks",
            dependencies: [.product(name: "CardGateway", package: "CardGateway"), "BenchmarkSupport"]),
        // callgrindMeasured and Configuration.callgrindAware, for scripts/callgrind (instructions per operation).
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/BenchmarkSupport",
            swiftSettings: swiftSettings
        ),
        // The targeted benchmarks' operations as a plain executable for scripts/callgrind (no malloc interposer).
        .executableTarget(
            name: "CallgrindProbe",
            dependencies: [.product(name: "CardGateway", package: "CardGateway"), "ProviderFixtures"],
            path: "Probes/CallgrindProbe",
            swiftSettings: swiftSettings
        ),
        // jwt/trustpayments-client-session (the adapter's public API) next to jwt/jwtkit-mint: the same claims,
        // algorithm, serializer and key.
        benchmarkTarget(
            "JWTBenchmarks",
            dependencies: [
                .product(name: "CardGateway", package: "CardGateway"),
                .product(name: "JWTKit", package: "jwt-kit"),
                "ProviderFixtures",
                "BenchmarkSupport",
            ]
        ),
        // glibc's live heap in bytes (mallinfo2), for the load benchmarks' memory per call in flight.
        .target(name: "HeapProbe", path: "Probes/HeapProbe"),
        // The providers benchmarked, from the rooms' subjects (Providers/<Name>/Examples/<Name>ExampleBenchmark.swift,
        // through CardGatewayExamples; Marqeta and Lithic in the live benchmarks only: e2e and load), and the
        // transports that record a simulator's answers and replay them in process (shared by the targets below).
        .target(
            name: "ProviderFixtures",
            dependencies: [
                .product(name: "CardGateway", package: "CardGateway"),
                .product(name: "CardGatewayAsyncHTTPClient", package: "CardGateway"),
                .product(name: "CardGatewaySimulation", package: "CardGateway"),
                .product(name: "CardGatewayExamples", package: "CardGateway"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                "HeapProbe",
            ],
            path: "Benchmarks/ProviderFixtures",
            swiftSettings: swiftSettings
        ),
        // adapter/<kind>/<operation>: each adapter's operations over replayed answers (no I/O).
        benchmarkTarget(
            "AdapterBenchmarks",
            dependencies: [
                .product(name: "CardGateway", package: "CardGateway"), "ProviderFixtures", "BenchmarkSupport",
            ]),
        // gateway/<kind>/<operation>: CardGateway with every default over replayed answers (no I/O).
        benchmarkTarget(
            "GatewayBenchmarks",
            dependencies: [
                .product(name: "CardGateway", package: "CardGateway"), "ProviderFixtures", "BenchmarkSupport",
            ]),
        // e2e/<kind>/gateway and e2e/<kind>/direct: the gateway and a bare AsyncHTTPClient request on loopback.
        benchmarkTarget(
            "EndToEndBenchmarks",
            dependencies: [
                .product(name: "CardGateway", package: "CardGateway"),
                .product(name: "CardGatewayAsyncHTTPClient", package: "CardGateway"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                "ProviderFixtures",
                "BenchmarkSupport",
            ]
        ),
        // load/<kind>/<callers>: 64, 256 and 1,024 concurrent callers against the provider's simulator answering after
        // 100 ms, through the gateway and as bare AsyncHTTPClient requests on a client whose pool does not limit them.
        benchmarkTarget(
            "LoadBenchmarks",
            dependencies: [
                .product(name: "CardGateway", package: "CardGateway"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                "ProviderFixtures",
            ]
        ),
        // authorization/<kind>/1000-per-second (issue 47): the provisioning server's decision path with an instant
        // decider beside a bare Hummingbird route answering the provider's approval, each simulator playing the network.
        benchmarkTarget(
            "AuthorizationBenchmarks",
            dependencies: [
                .product(name: "CardGateway", package: "CardGateway"),
                .product(name: "CardGatewaySimulation", package: "CardGateway"),
                .product(name: "CardGatewayExamples", package: "CardGateway"),
                .product(name: "Hummingbird", package: "hummingbird"),
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
        // The shared ledger under load (issue 39): 1,000 Trust Payments charges through two gateways with their own
        // pools on one PostgreSQL; a plain executable (scripts/load-ledger), not a package-benchmark target. It lives in
        // Load/, not Benchmarks/: package-benchmark runs every executable whose folder sits in Benchmarks/ as a
        // benchmark, and this one needs a database, so `swift package benchmark` ended in "benchmarkCrashed" without one.
        .executableTarget(
            name: "LedgerLoad",
            dependencies: [
                .product(name: "CardGateway", package: "CardGateway"),
                .product(name: "CardGatewayPostgres", package: "CardGateway"),
                .product(name: "CardGatewayAsyncHTTPClient", package: "CardGateway"),
                .product(name: "CardGatewaySimulation", package: "CardGateway"),
                .product(name: "CardGatewayTrustPayments", package: "CardGateway"),
                .product(name: "TrustPaymentsSimulator", package: "CardGateway"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Load/LedgerLoad",
            swiftSettings: swiftSettings
        ),
        // The Swift stack's floor for a forwarded call (issue 49): a bare Hummingbird route forwarding with
        // AsyncHTTPClient, no auth, routing or JSON; a plain executable run by scripts/cost-benchmark beside nginx and
        // provisioning-server. In Load/ for the reason LedgerLoad is.
        .executableTarget(
            name: "FloorProxy",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Load/FloorProxy",
            swiftSettings: swiftSettings
        ),
        // The card network's side of scripts/authorization-benchmark (issue 47): a provider's signed authorization
        // requests, built before the clock starts, sent at a fixed rate or with a fixed number in flight from a
        // process of their own. In Load/ for the reason LedgerLoad is.
        .executableTarget(
            name: "AuthorizationLoad",
            dependencies: [
                .product(name: "CardGatewaySimulation", package: "CardGateway"),
                .product(name: "StripeSimulator", package: "CardGateway"),
                .product(name: "AdyenSimulator", package: "CardGateway"),
                .product(name: "MarqetaSimulator", package: "CardGateway"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Load/AuthorizationLoad",
            swiftSettings: swiftSettings
        ),
    ]
)
