import CardGateway
import Foundation
import ProviderFixtures

// The operations of the benchmarks with a target, run N times for scripts/callgrind: `CallgrindProbe <name> <N>`.
// A plain executable, because the benchmark executables link package-benchmark's malloc interposer, under which
// valgrind 3.19 (Debian 12) crashes. Each operation runs inside `callgrindMeasured`, the only place callgrind collects
// (`--toggle-collect`); set-up happens outside it. The inputs are those of the benchmarks of the same name.

/// Runs `body`. Kept out of line so that callgrind finds it by name.
@inline(never)
func callgrindMeasured<Result>(_ body: () throws -> Result) rethrows -> Result { try body() }

/// `callgrindMeasured` for one route lookup, its key passed as an argument (borrowed): a closure capturing the key
/// would copy it in and destroy the copy after.
@inline(never)
func callgrindMeasuredMatch(_ router: Router, _ key: RouteKey) -> RouteMatch? { router.match(key) }

/// `callgrindMeasured` for asynchronous bodies.
@inline(never)
func callgrindMeasuredAsync<Result>(_ body: () async throws -> Result) async rethrows -> Result { try await body() }

/// The gateway calls, in a nonisolated function so that they run on the global executor like a server's request
/// tasks do, and not on the main actor of this file's top-level code (which would hop executors on every call).
nonisolated func gatewayCalls(_ entry: ReplayFixtures.Entry, _ iterations: Int) async throws {
    let context = OperationContext()
    for _ in 0..<iterations {
        try await callgrindMeasuredAsync {
            try await entry.subject.throughGateway(entry.gateway, entry.subject.target, context)
        }
    }
}

/// AdapterBenchmarks' calls, on the global executor (see `gatewayCalls`).
nonisolated func adapterCalls<Adapter>(
    _ adapter: Adapter, _ run: (Adapter, OperationContext) async throws -> Void, _ iterations: Int
) async throws {
    let context = OperationContext()
    for _ in 0..<iterations {
        try await callgrindMeasuredAsync { try await run(adapter, context) }
    }
}

/// EndToEndBenchmarks' calls, on the global executor (see `gatewayCalls`).
nonisolated func loopbackCalls(_ entry: LiveFixtures.Entry, direct: Bool, _ iterations: Int) async throws {
    let context = OperationContext()
    for _ in 0..<iterations {
        try await callgrindMeasuredAsync {
            if direct {
                keep(try await entry.sendDirect())
            } else {
                try await entry.subject.throughGateway(entry.gateway, entry.subject.target, context)
            }
        }
    }
}

/// With PROBE_TIME set, the wall time per call since `started`.
func reportTime(_ name: String, since started: ContinuousClock.Instant, iterations: Int) {
    if ProcessInfo.processInfo.environment["PROBE_TIME"] != nil {
        print("\(name): \((ContinuousClock.now - started) / iterations) per call")
    }
}

@inline(never)
func keep<T>(_ value: T) { withExtendedLifetime(value) {} }

/// One route per disjoint 8-digit range behind three issuer/program routes, and a catch-all (RouterBenchmarks' table).
func routes(size: Int) -> [Route] {
    let spacing = 50_000_000 / size
    var routes: [Route] = [
        Route(when: .init(issuers: ["issuer-a"]), use: "issuer-a"),
        Route(when: .init(programs: ["PROGRAM-1", "PROGRAM-2"]), use: "programs"),
        Route(when: .init(issuers: ["issuer-b"], countries: ["DE", "AT"]), use: "issuer-b"),
    ]
    for index in 0..<size {
        let low = 40_000_000 + index * spacing
        routes.append(
            Route(
                when: .init(bins: [BINRange(low: String(low), high: String(low + spacing / 2 - 1))]),
                use: "bin-\(index % 4)"))
    }
    routes.append(Route(when: .init(), use: "default"))
    return routes
}

func hits(size: Int) -> [RouteKey] {
    let spacing = 50_000_000 / size
    return (0..<1_024).map { draw in
        let low = 40_000_000 + ((draw * 7_919) % size) * spacing
        return RouteKey(bin: "\(low + spacing / 4)12345678", country: "GB", currency: "GBP")
    }
}

/// ConfigurationBenchmarks' document: four instances of a fake kind, three routes, `count` BIN routes, a catch-all.
func document(binRoutes count: Int) -> Data {
    var routes = [#"{ "when": { "issuer": "issuer-a" }, "use": "eu-cards" }"#]
    let spacing = 50_000_000 / count
    let instances = ["eu-cards", "us-cards", "uk-cards", "fallback"]
    for index in 0..<count {
        let low = 40_000_000 + index * spacing
        routes.append(
            #"{ "when": { "bin": "\#(low)-\#(low + spacing / 2 - 1)" }, "use": "\#(instances[index % 4])", "description": "sponsor range \#(index)" }"#
        )
    }
    routes.append(#"{ "when": {}, "use": "fallback" }"#)
    let providers = instances.map {
        #""\#($0)": { "kind": "fake-issuer", "environment": "sandbox", "credentials": { "apiKey": "literal:key-\#($0)-123456" } }"#
    }
    return Data(
        #"{ "providers": { \#(providers.joined(separator: ", ")) }, "routes": [ \#(routes.joined(separator: ",\n")) ] }"#
            .utf8)
}

struct FakeProvider: CardProvider { let descriptor: ProviderDescriptor }

let registry: ProviderRegistry = {
    let kind = ProviderKind("fake-issuer")
    let descriptor = ProviderDescriptor(kind: kind, capabilities: [.cardLookup])
    return ProviderRegistry([
        ProviderFactory(
            kind: kind, descriptor: descriptor,
            environments: ["sandbox": URL(string: "https://sandbox.fake.example/v1")!],
            credentials: [CredentialSpec("apiKey")], options: []
        ) { _ in FakeProvider(descriptor: descriptor) }
    ])
}()

/// The floor's calls, on the global executor (see `gatewayCalls`).
nonisolated func floorCalls(_ gateway: CardGateway, _ iterations: Int) async throws {
    let context = OperationContext()
    for _ in 0..<iterations {
        keep(
            try await callgrindMeasuredAsync {
                try await gateway.card(FloorFixtures.card, via: FloorFixtures.target, context: context)
            })
    }
}

let providerMessage =
    "Your card 4242 4242 4242 4242 was declined (card_declined); request made with key sk_test_4eC39HqLyjWDarjtT1zdp7dc, "
    + "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U; "
    + "PAN 5555555555554444; see https://support.example.com/declines for details."

let arguments = CommandLine.arguments
guard arguments.count == 3, let iterations = Int(arguments[2]) else {
    print(
        "usage: CallgrindProbe <router/match-10|router/match-100k-bins|router/init-100k-bins|config/load-10k-routes|error/init-description|safetext/scrub-provider-message|gateway/paysafe/card|gateway/adyen/card|gateway/stripe/card|gateway/bridge/card|gateway/trustpayments/charge|adapter/<kind>/<operation>|e2e/<kind>/gateway|e2e/<kind>/direct|e2e/<kind>/paired|floor/gateway|floor/client|load/<kind>/<callers> (iterations: measured seconds)> <iterations>"
    )
    exit(64)
}

switch arguments[1] {
case "router/match-10", "router/match-100k-bins":
    let size = arguments[1] == "router/match-10" ? 10 : 100_000
    let router = Router(routes: routes(size: size))
    let keys = hits(size: size)
    // Eight keys in turn, each held in a local and passed as an argument, as RouterBenchmarks does: a key read from
    // the array on every call, or captured by a closure, is copied (its strings retained and released), which is the
    // harness's cost, not the router's.
    let (k0, k1, k2, k3, k4, k5, k6, k7) = (keys[0], keys[1], keys[2], keys[3], keys[4], keys[5], keys[6], keys[7])
    for _ in 0..<iterations / 8 {
        keep(callgrindMeasuredMatch(router, k0))
        keep(callgrindMeasuredMatch(router, k1))
        keep(callgrindMeasuredMatch(router, k2))
        keep(callgrindMeasuredMatch(router, k3))
        keep(callgrindMeasuredMatch(router, k4))
        keep(callgrindMeasuredMatch(router, k5))
        keep(callgrindMeasuredMatch(router, k6))
        keep(callgrindMeasuredMatch(router, k7))
    }
case "router/init-100k-bins":
    let table = routes(size: 100_000)
    for _ in 0..<iterations { keep(callgrindMeasured { Router(routes: table) }) }
case "config/load-10k-routes":
    let data = document(binRoutes: 10_000)
    for _ in 0..<iterations {
        keep(try callgrindMeasured { try GatewayConfiguration.load(from: data, registry: registry) })
    }
case "error/init-description":
    let fieldErrors = [
        CardGatewayError.FieldError(field: "card.number", message: "4111111111111111 is not a valid card number"),
        CardGatewayError.FieldError(field: "card.expiry", message: "must be in the future"),
        CardGatewayError.FieldError(field: "amount", message: "must be greater than 0"),
    ]
    for _ in 0..<iterations {
        keep(
            callgrindMeasured {
                CardGatewayError(
                    .declined, providerMessage, provider: "eu-cards", providerKind: ProviderKind("stripe"),
                    providerCode: "card_declined",
                    httpStatus: 402, requestID: "req_8Hq2LfzX0a1b2c", fieldErrors: fieldErrors
                ).description
            })
    }
case "safetext/scrub-provider-message":
    for _ in 0..<iterations { keep(callgrindMeasured { SafeText.scrub(providerMessage) }) }
case let name where name.hasPrefix("gateway/"):
    // GatewayBenchmarks' call: the whole gateway over the answers the provider's simulator gave (recorded first,
    // outside the measured part).
    let kind = name.split(separator: "/")[1]
    let entry = try await ReplayFixtures.shared.entry(String(kind))
    let started = ContinuousClock.now
    try await gatewayCalls(entry, iterations)
    reportTime(name, since: started, iterations: iterations)
case "floor/gateway", "floor/client":
    // What a lookup costs when the provider does no work of its own: answered at once (the gateway alone), or after
    // one GET through the gateway's request chain to a transport that answers `{}` (the gateway and the chain).
    let gateway = try FloorFixtures.gateway(sending: arguments[1] == "floor/client")
    let started = ContinuousClock.now
    try await floorCalls(gateway, iterations)
    reportTime(arguments[1], since: started, iterations: iterations)
case let name where name.hasPrefix("adapter/"):
    // AdapterBenchmarks' call: the adapter alone (no gateway) over the recorded answers.
    let parts = name.split(separator: "/").map(String.init)
    guard parts.count == 3 else {
        print("unknown operation \(name)")
        exit(64)
    }
    let entry = try await ReplayFixtures.shared.entry(parts[1])
    guard let adapter = entry.adapters[parts[2]],
        let run = entry.subject.operations.first(where: { $0.name == parts[2] })?.run
    else {
        print("unknown operation \(name)")
        exit(64)
    }
    let started = ContinuousClock.now
    try await adapterCalls(adapter, run, iterations)
    reportTime(name, since: started, iterations: iterations)
case let name where name.hasPrefix("e2e/") && name.hasSuffix("/paired"):
    // 40 rounds of `iterations` calls through the gateway and as many bare requests, in alternating order, each pair
    // timed side by side in wall time and in the process's CPU time (the simulator's included on both sides): the
    // median and quartiles of the rounds' gateway ÷ direct. Pairing cancels the drift between two benchmarks run one
    // after the other; the quartiles show what is left of this machine's noise.
    let kind = String(name.split(separator: "/")[1])
    let entry = try await LiveFixtures.shared.entry(kind)
    func processCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
    var wallRatios: [Double] = []
    var cpuRatios: [Double] = []
    for round in 0..<40 {
        var wall: [Bool: Duration] = [:]
        var cpu: [Bool: Duration] = [:]
        for direct in round % 2 == 0 ? [false, true] : [true, false] {
            let (started, startedCPU) = (ContinuousClock.now, processCPUTime())
            try await loopbackCalls(entry, direct: direct, iterations)
            (wall[direct], cpu[direct]) = (ContinuousClock.now - started, processCPUTime() - startedCPU)
        }
        wallRatios.append(wall[false]! / wall[true]!)
        cpuRatios.append(cpu[false]! / cpu[true]!)
    }
    func summary(_ ratios: [Double]) -> String {
        let sorted = ratios.sorted()
        return String(
            format: "median %.3f, quartiles %.3f–%.3f", sorted[sorted.count / 2], sorted[sorted.count / 4],
            sorted[3 * sorted.count / 4])
    }
    print("\(name): wall \(summary(wallRatios)); CPU \(summary(cpuRatios))")
case let name where name.hasPrefix("e2e/"):
    // EndToEndBenchmarks' calls: the provider's simulator on loopback, through the gateway or as the bare request.
    let parts = name.split(separator: "/")
    guard parts.count == 3, parts[2] == "gateway" || parts[2] == "direct" else {
        print("unknown operation \(name)")
        exit(64)
    }
    let entry = try await LiveFixtures.shared.entry(String(parts[1]))
    let started = ContinuousClock.now
    try await loopbackCalls(entry, direct: parts[2] == "direct", iterations)
    reportTime(name, since: started, iterations: iterations)
case let name where name.hasPrefix("load/"):
    // LoadBenchmarks' run outside package-benchmark (no malloc interposer): `callers` callers against the simulator
    // answering after 100 ms, bare and through the gateway, `iterations` seconds measured each after 1 s unmeasured.
    let parts = name.split(separator: "/")
    guard parts.count == 3, let callers = Int(parts[2]) else {
        print("unknown operation \(name)")
        exit(64)
    }
    let fixture = try await LoadFixtures.shared.fixture(String(parts[1]))
    print(try await fixture.report(callers: callers, seconds: .seconds(iterations)).text)
default:
    print("unknown operation \(arguments[1])")
    exit(64)
}
