import Benchmark
import BenchmarkSupport
import CardGateway
import Foundation

// Loading and validating a configuration document (`GatewayConfiguration.load(from:registry:secrets:)`): JSON
// parsing, per-instance checks against the registry, per-route checks and the BIN overlap sweep. Only the core
// product is needed: the registry holds a fake provider kind, as the core's own tests do.

let benchmarks: @Sendable () -> Void = {
    for routeCount in [100, 1_000, 10_000] {
        let document = Documents.valid(binRoutes: routeCount)
        Benchmark(
            "config/load-\(routeCount >= 1_000 ? "\(routeCount / 1_000)k" : "\(routeCount)")-routes",
            configuration: loadConfiguration(routeCount)
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                do {
                    blackHole(
                        try callgrindMeasured {
                            try GatewayConfiguration.load(
                                from: document, registry: Fakes.registry, secrets: Fakes.secrets)
                        })
                } catch {
                    benchmark.error("the valid document failed to load: \(error)")
                }
            }
        }
    }

    // The error path: every 10th route overlaps its neighbour and sends the cards elsewhere (100 problems), and the
    // error is formatted as an operator would see it.
    let invalid = Documents.valid(binRoutes: 1_000, overlapEvery: 10)
    Benchmark(
        "config/load-1k-routes-100-overlaps",
        configuration: loadConfiguration(1_000)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            do {
                _ = try callgrindMeasured {
                    try GatewayConfiguration.load(from: invalid, registry: Fakes.registry, secrets: Fakes.secrets)
                }
                benchmark.error("the invalid document loaded")
            } catch let error as CardGatewayError {
                guard error.configurationProblems.count == 100 else {
                    benchmark.error("expected 100 problems, got \(error.configurationProblems.count)")
                    return
                }
                blackHole(error.description)
            } catch {
                benchmark.error("unexpected error \(error)")
            }
        }
    }
}

func loadConfiguration(_ routeCount: Int) -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 2,
        scalingFactor: .one,
        maxDuration: .seconds(2),
        maxIterations: routeCount >= 10_000 ? 30 : routeCount >= 1_000 ? 300 : 3_000,
        // 10k routes: the issue's ≤ 100 ms (raw units: ns per load).
        thresholds: routeCount >= 10_000
            ? targetThresholds(
                time: 100_000_000,
                extra: [
                    .peakMemoryResident: .init(relative: [.p50: 10], absolute: [:]),
                    // About 80 250 allocations, give or take a few from dictionary growth (the per-process hash seed).
                    .mallocCountTotal: .init(relative: [.p50: 1], absolute: [.p90: 100]),
                ])
            : [
                .wallClock: .init(relative: [.p50: 100], absolute: [:]),
                .mallocCountTotal: .init(relative: [.p50: 5], absolute: [:]),
                .peakMemoryResident: .init(relative: [.p50: 10], absolute: [:]),
            ]
    ).callgrindAware
}

/// A provider that is never called: loading a configuration only needs the factory's description.
struct FakeProvider: CardProvider {
    let descriptor: ProviderDescriptor
}

enum Fakes {
    static let kind = ProviderKind("fake-issuer")

    static var factory: ProviderFactory {
        let descriptor = ProviderDescriptor(
            kind: kind, capabilities: [.cardLookup, .walletProvisioning, .webhooks],
            provisioningFlows: [.applePay: .issuerSDKRelay, .googlePay: .issuerSDKRelay]
        )
        return ProviderFactory(
            kind: kind, descriptor: descriptor,
            environments: [
                "sandbox": URL(string: "https://sandbox.fake.example/v1")!,
                "live": URL(string: "https://api.fake.example/v1")!,
            ],
            credentials: [CredentialSpec("apiKey"), CredentialSpec("webhookSecret", required: false)],
            options: [
                OptionSpec("region", type: .string, allowedValues: ["EU", "US"]), OptionSpec("verbose", type: .bool),
            ]
        ) { _ in FakeProvider(descriptor: descriptor) }
    }

    static let registry = ProviderRegistry([factory])

    /// Environment secrets come from this dictionary, never from the process environment.
    static let secrets = SecretResolver(environment: [
        "FAKE_KEY_EU": "fake-eu-key-123456", "FAKE_KEY_US": "fake-us-key-654321",
    ])
}

enum Documents {
    static let instances = ["eu-cards", "us-cards", "uk-cards", "fallback"]

    /// Four instances, three issuer/program/country routes, `binRoutes` disjoint 8-digit BIN routes spread over the
    /// instances and a catch-all. With `overlapEvery: n`, every n-th BIN route repeats the previous route's range
    /// for a different instance, which is a configuration error.
    static func valid(binRoutes: Int, overlapEvery: Int? = nil) -> Data {
        var routes: [String] = [
            #"{ "when": { "issuer": "issuer-a" }, "use": "eu-cards" }"#,
            #"{ "when": { "program": ["PROGRAM-1", "PROGRAM-2"], "operation": ["card", "provisioningOffer", "provision"] }, "use": "us-cards" }"#,
            #"{ "when": { "country": ["DE", "AT"], "currency": "EUR", "wallet": "applePay" }, "use": "eu-cards" }"#,
        ]
        let spacing = 50_000_000 / binRoutes
        for index in 0..<binRoutes {
            var low = 40_000_000 + index * spacing
            if let overlapEvery, index % overlapEvery == overlapEvery - 1 { low -= spacing }
            let high = low + spacing / 2 - 1
            let instance = instances[index % instances.count]
            routes.append(
                #"{ "when": { "bin": "\#(low)-\#(high)" }, "use": "\#(instance)", "description": "sponsor range \#(index)" }"#
            )
        }
        routes.append(#"{ "when": {}, "use": "fallback" }"#)
        let document = """
            {
              "description": "benchmark document",
              "providers": {
                "eu-cards": { "kind": "fake-issuer", "environment": "sandbox",
                              "credentials": { "apiKey": "env:FAKE_KEY_EU" }, "options": { "region": "EU" }, "timeoutSeconds": 5 },
                "us-cards": { "kind": "fake-issuer", "baseURL": "http://127.0.0.1:9999/v1",
                              "credentials": { "apiKey": "env:FAKE_KEY_US", "webhookSecret": "literal:whsec_fake_123456" }, "maxAttempts": 2 },
                "uk-cards": { "kind": "fake-issuer", "environment": "live",
                              "credentials": { "apiKey": "literal:uk-literal-key-789" }, "options": { "region": "EU", "verbose": true } },
                "fallback": { "kind": "fake-issuer", "environment": "sandbox",
                              "credentials": { "apiKey": "literal:fallback-key-000" } }
              },
              "routes": [
                \(routes.joined(separator: ",\n    "))
              ]
            }
            """
        return Data(document.utf8)
    }
}
