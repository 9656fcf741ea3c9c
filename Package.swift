// swift-tools-version: 6.2
import PackageDescription

/// One set of settings for every target: Swift 6 language mode, explicit existentials and warnings as errors
/// (SwiftPM applies warning control to this package only, never to its dependencies).
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .treatAllWarnings(as: .error),
]

let providers = ["Paysafe", "Adyen", "Stripe", "Bridge", "TrustPayments", "Marqeta", "Lithic"]

/// Set by scripts/fuzz only: the fuzz package (Fuzz/) needs the core, the adapters and their harnesses, so the example
/// programs and the PostgreSQL module are left out of its graph. SwiftPM builds a package's build-tool plugins (the
/// OpenAPI generator of the provisioning server) in every build of a graph that has them, whatever is asked for, and
/// under the fuzz build's sanitizers that is a third of its compile steps.
let fuzzBuild = Context.environment["CARDGATEWAY_FUZZ_BUILD"] == "1"

/// Extra dependencies of one provider's adapter and simulator: Trust Payments' JWTs are jwt-kit's; only Bridge links
/// `_CryptoExtras` (its webhooks are RSA-signed).
let providerExtras: [String: [Target.Dependency]] = [
    "Bridge": [.product(name: "_CryptoExtras", package: "swift-crypto")],
    "TrustPayments": [.product(name: "JWTKit", package: "jwt-kit")],
]

/// Extra dependencies of one provider's simulator only: the Bridge simulator makes and parses X.509 certificates.
let simulatorDependencyExtras: [String: [Target.Dependency]] = [
    "Bridge": [.product(name: "X509", package: "swift-certificates")],
    // The Adyen simulator's RSA key pair and AES for card details and PIN (issue 40).
    "Adyen": [.product(name: "_CryptoExtras", package: "swift-crypto")],
]

/// Extra dependencies of one provider's tests.
let testExtras: [String: [Target.Dependency]] = [
    "Bridge": [
        .product(name: "_CryptoExtras", package: "swift-crypto"), .product(name: "X509", package: "swift-certificates"),
    ],
    // The Adyen card reveal tests act as the app: RSA and AES of their own.
    "Adyen": [.product(name: "_CryptoExtras", package: "swift-crypto")],
]

/// Files in a simulator folder that are not Swift: scripts that drive the provider's official client library
/// against the simulator (run by the provider's tests when `CARDGATEWAY_OFFICIAL_CLIENTS=1`).
let simulatorExtras: [String: [String]] = [
    "Adyen": ["official-client-check.py"],
    "Stripe": ["official-client-check.py"],
    "Lithic": ["official-client-check.py"],
    "TrustPayments": ["official-client-check.py"],
]

var targets: [Target] = [
    // Hex, Base64 and constant-time comparison: the one copy that the core and the simulation kit (which does not
    // depend on the core) both re-export. Foundation only.
    .target(name: "CardGatewayBytes", swiftSettings: swiftSettings),
    .target(
        name: "CardGateway",
        dependencies: [
            "CardGatewayBytes",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            // DER structure checks on the certificates an app sends for Apple Pay provisioning.
            .product(name: "SwiftASN1", package: "swift-asn1"),
        ],
        swiftSettings: swiftSettings
    ),
    // The default transport, on AsyncHTTPClient, kept out of the core so that the core links no NIO.
    .target(
        name: "CardGatewayAsyncHTTPClient",
        dependencies: [
            "CardGateway",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
        ],
        swiftSettings: swiftSettings
    ),
    .target(
        name: "CardGatewaySimulation",
        dependencies: [
            "CardGatewayBytes",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            // The simulated card network posts authorization requests to the integrator's endpoint.
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ],
        swiftSettings: swiftSettings
    ),
    .target(
        name: "CardGatewayTesting",
        dependencies: [
            "CardGateway", "CardGatewayAsyncHTTPClient",
            "CardGatewaySimulation",
            // The fault matrix's client refuses a connection at once (no retried connection establishment).
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            // The contract suite's telemetry run records the adapter's attempt spans in memory.
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
        ],
        swiftSettings: swiftSettings
    ),
    // Helpers the test targets share (Swift Testing assertions); not a product.
    .target(
        name: "SharedTestSupport",
        dependencies: ["CardGateway", .product(name: "Subprocess", package: "swift-subprocess")],
        path: "Tests/SharedTestSupport",
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "CardGatewayTests",
        dependencies: [
            "CardGateway", "CardGatewayTesting", "CardGatewayAsyncHTTPClient", "SharedTestSupport",
            .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "ContractTests",
        dependencies: [
            "CardGateway", "CardGatewayTesting", "CardGatewaySimulation",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
        ]
            + providers.flatMap { name -> [Target.Dependency] in
                [.target(name: "CardGateway\(name)"), .target(name: "\(name)Simulator")]
            },
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "CardGatewaySimulationTests",
        dependencies: [
            "CardGatewaySimulation", "CardGatewayTesting", "CardGateway", "CardGatewayAsyncHTTPClient",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: swiftSettings
    ),
]

for name in providers {
    targets.append(
        .target(
            name: "CardGateway\(name)",
            dependencies: [
                "CardGateway",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ] + providerExtras[name, default: []],
            path: "Providers/\(name)/Adapter",
            swiftSettings: swiftSettings
        )
    )
    targets.append(
        .target(
            name: "\(name)Simulator",
            dependencies: [
                "CardGatewaySimulation",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ] + providerExtras[name, default: []] + simulatorDependencyExtras[name, default: []],
            path: "Providers/\(name)/Simulator",
            exclude: simulatorExtras[name, default: []],
            swiftSettings: swiftSettings
        )
    )
    targets.append(
        .testTarget(
            name: "\(name)Tests",
            dependencies: [
                .target(name: "CardGateway\(name)"), .target(name: "\(name)Simulator"), "CardGateway",
                "CardGatewayTesting", "CardGatewaySimulation",
                "CardGatewayAsyncHTTPClient",
                "SharedTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ] + testExtras[name, default: []]
                + [.target(name: "\(name)Fuzz"), "CardGatewayFuzzSupport"],
            // Published examples and specs, read from the source tree by the tests (never bundled). Paysafe publishes
            // no wire examples (its seed is SDK code), so its room has none.
            exclude: name == "Paysafe" ? [] : ["Fixtures"],
            swiftSettings: swiftSettings
        )
    )
}

// Fuzzing (docs/RELIABILITY.md, "Fuzzing"): one harness per target, each a function of the input bytes that
// runs real adapter, webhook and configuration code and never traps by itself. Each room brings its own harnesses
// (Providers/<Name>/Fuzz, module <Name>Fuzz) and its corpus recorder (Tests/<Name>Tests/<Name>FuzzCorpusTests.swift);
// CardGatewayFuzzHarnesses lists the rooms' targets (FuzzTargets.all) beside the cross-provider ones. The libFuzzer
// executable is in the separate package Fuzz/ (built with AddressSanitizer and libFuzzer: scripts/fuzz); the regression
// tests run every corpus and regression file through the same harnesses in `swift test`. No NIO here.
// What every harness shares (the response and webhook harness shapes, seeds, keys): the rooms' harnesses build on it,
// and CardGatewayFuzzHarnesses lists them all.
targets.append(
    .target(
        name: "CardGatewayFuzzSupport",
        dependencies: [
            "CardGateway",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ],
        swiftSettings: swiftSettings
    )
)
for name in providers {
    // A room's own fuzz harnesses (Providers/<Name>/Fuzz): its adapter's response decoding and webhooks. No provider
    // extras: the harnesses sign with Crypto and _CryptoExtras themselves (Bridge's are _CryptoExtras, listed already).
    targets.append(
        .target(
            name: "\(name)Fuzz",
            dependencies: [
                "CardGateway", .target(name: "CardGateway\(name)"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                "CardGatewayFuzzSupport",
            ],
            path: "Providers/\(name)/Fuzz",
            swiftSettings: swiftSettings
        )
    )
}
targets += [
    .target(
        name: "CardGatewayFuzzHarnesses",
        dependencies: [
            "CardGateway",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ] + providers.map { .target(name: "CardGateway\($0)") } + ["CardGatewayFuzzSupport"]
            + providers.map { .target(name: "\($0)Fuzz") },
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "FuzzRegressionTests",
        // The corpus and regression runs and the harnesses' reach; each room records its own corpus in its tests.
        dependencies: [
            "CardGatewayFuzzHarnesses", "CardGateway",
            .product(name: "HTTPTypes", package: "swift-http-types"), "CardGatewayFuzzSupport",
        ],
        swiftSettings: swiftSettings
    ),
]

// The example programs: the `cardgateway` CLI, the provisioning server, and what they share.
if !fuzzBuild {
    // What the example programs ask of a room (its embedded simulator, sample inputs, demo steps, simulated
    // authorizations, benchmark subject), so that each room brings its own (Providers/<Name>/Examples).
    targets.append(
        .target(
            name: "CardGatewayExampleKit",
            dependencies: [
                "CardGateway", "CardGatewayAsyncHTTPClient", "CardGatewaySimulation",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Examples/Kit",
            swiftSettings: swiftSettings
        )
    )
    // A room's example pieces (Providers/<Name>/Examples): what the example programs run of that provider.
    for name in providers {
        targets.append(
            .target(
                name: "\(name)Examples",
                dependencies: [
                    "CardGateway", "CardGatewayAsyncHTTPClient", "CardGatewaySimulation",
                    .target(name: "CardGateway\(name)"), .target(name: "\(name)Simulator"),
                    .product(name: "Logging", package: "swift-log"),
                    .product(name: "HTTPTypes", package: "swift-http-types"), "CardGatewayExampleKit",
                ],
                path: "Providers/\(name)/Examples",
                swiftSettings: swiftSettings
            )
        )
    }
    targets += [
        .target(
            name: "ExampleSupport",
            // The rooms' example pieces (Providers/<Name>/Examples), listed once in ExampleRooms.all: no adapter or
            // simulator of its own.
            dependencies: [
                "CardGateway", "CardGatewayAsyncHTTPClient", "CardGatewaySimulation", "ProvisioningServerApp",
                "CardGatewayPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                "CardGatewayExampleKit",
            ] + providers.map { .target(name: "\($0)Examples") },
            path: "Examples/Support",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CardGatewayCLI",
            dependencies: [
                "CardGateway", "ExampleSupport", "CardGatewaySimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/CLI/Commands",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "cardgateway",
            dependencies: ["CardGatewayCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/CLI/Main",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ProvisioningServerApp",
            dependencies: [
                "CardGateway",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Yams", package: "Yams"),
                // Connection limits, read deadlines and TLS on the server's channel; bearer JWTs verified against a JWKS.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Examples/ProvisioningServer/App",
            // openapi.yaml is the source of the server's types and routing (generated at build time by the plugin, as
            // openapi-generator-config.yaml says) and is also served, byte for byte, at GET /openapi.yaml.
            resources: [.copy("openapi.yaml")],
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(
            name: "provisioning-server",
            dependencies: [
                "ProvisioningServerApp", "ExampleSupport", "CardGateway", "CardGatewayAsyncHTTPClient",
                "CardGatewaySimulation",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // OpenTelemetry tracing (W3C propagation, OTLP export), bootstrapped only when the OTLP environment
                // variables ask for it; the executable only, never the library.
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Examples/ProvisioningServer/Main",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ExamplesTests",
            dependencies: [
                "CardGatewayCLI", "ProvisioningServerApp", "ExampleSupport", "CardGateway",
                "CardGatewayAsyncHTTPClient", "CardGatewayTesting", "CardGatewaySimulation", "SharedTestSupport",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                // The hostile-client, JWT and TLS tests: raw sockets, keys and a self-signed certificate made in the test.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The built provisioning-server, run as a child process.
                .product(name: "Subprocess", package: "swift-subprocess"),
            ]
                + providers.flatMap { name -> [Target.Dependency] in
                    [.target(name: "CardGateway\(name)"), .target(name: "\(name)Simulator")]
                },
            swiftSettings: swiftSettings
        ),
    ]
}

// The PostgreSQL stores (credential references, operation ledger, provisioning journal): their own module, so
// that only users who want PostgreSQL build postgres-nio.
if !fuzzBuild {
    targets += [
        .target(
            name: "CardGatewayPostgres",
            dependencies: [
                "CardGateway",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Against a real database (CARDGATEWAY_TEST_DATABASE_URL; skipped without one, failing in CI).
        .testTarget(
            name: "CardGatewayPostgresTests",
            dependencies: [
                "CardGatewayPostgres", "CardGateway", "CardGatewayAsyncHTTPClient", "CardGatewayTesting",
                "CardGatewaySimulation", "ExampleSupport",
                "CardGatewayCLI",
                "CardGatewayTrustPayments", "TrustPaymentsSimulator", "CardGatewayPaysafe", "PaysafeSimulator",
                "AdyenSimulator",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
}

let package = Package(
    name: "CardGateway",
    platforms: [.macOS(.v15)],
    products: (fuzzBuild
        ? []
        : [
            .executable(name: "cardgateway", targets: ["cardgateway"]),
            .executable(name: "provisioning-server", targets: ["provisioning-server"]),
            .library(name: "CardGatewayPostgres", targets: ["CardGatewayPostgres"]),
            // For the benchmark package (Benchmarks/) only, not part of the library's API: the authorization
            // benchmark drives the provisioning server as the demo runs it, on the embedded simulators.
            .library(
                name: "CardGatewayExamples",
                targets: ["CardGatewayExampleKit", "ExampleSupport", "ProvisioningServerApp"]),
        ]) + [
            .library(name: "CardGateway", targets: ["CardGateway"]),
            .library(name: "CardGatewayAsyncHTTPClient", targets: ["CardGatewayAsyncHTTPClient"]),
            .library(name: "CardGatewaySimulation", targets: ["CardGatewaySimulation"]),
            .library(name: "CardGatewayTesting", targets: ["CardGatewayTesting"]),
            // For the fuzz package (Fuzz/) only: not part of the library's API.
            .library(name: "CardGatewayFuzzHarnesses", targets: ["CardGatewayFuzzHarnesses"]),
        ]
        + providers.flatMap { name in
            [
                .library(name: "CardGateway\(name)", targets: ["CardGateway\(name)"]),
                .library(name: "\(name)Simulator", targets: ["\(name)Simulator"]),
            ]
        },
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // NIOHTTPTypes: the HTTP parts the provisioning server's read-deadline handler sees.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // The provisioning server's OTLP trace export: OTLP/HTTP only (its gRPC exporter would add grpc-swift).
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // The provisioning server is generated from its OpenAPI document at build time.
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // `swift package generate-documentation`: the DocC catalog in Sources/CardGateway/CardGateway.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The tests' child processes (official clients, the built server): never Foundation.Process, whose run() can
        // crash the test process on Linux with Swift 6.3.1 (docs/RELIABILITY.md, "A crash in CI"). Tests only.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    ],
    targets: targets
)
