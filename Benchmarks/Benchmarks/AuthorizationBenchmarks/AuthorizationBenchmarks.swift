import Benchmark
import CardGateway
import CardGatewaySimulation
import ExampleSupport
import Foundation
import HTTPTypes
import Hummingbird
import ProvisioningServerApp

// `authorization/<kind>/1000-per-second` (issue 47): the decision path as a provider meets it. The provider's
// simulator plays the card network in this process and sends its signed authorization (Stripe's
// `issuing_authorization.request`, Adyen's relayed authorisation, Marqeta's JIT Funding request) over loopback to
// two endpoints, side by side in one run:
// - bare: a Hummingbird route that answers the provider's approval as a fixed JSON body, reading nothing;
// - gateway: the provisioning server's `POST /authorizations/{instance}` as the demo runs it (its middlewares, the
//   adapter's verification and reading, the in-memory operation ledger, an instant decider that approves, the
//   adapter's answer).
// Each side is driven open-loop at 1,000 requests a second (`CARDGATEWAY_AUTHORIZATION_RATE` sets another; 1 s unmeasured, then 5 s measured; a request's latency
// counts from the instant it was due, so a stall is not hidden by sending later), and then closed-loop with 128
// requests in flight for 3 s, to show whether the gateway has a ceiling of its own below the bare route's. The
// process's CPU (getrusage: user + system) over each measured window, divided by its requests, is CPU a request;
// gateway − bare is what a decision adds. Every gateway answer must be an approval the provider recorded as such
// (Stripe `webhook_approved`, Adyen `Authorised` by the decider, Marqeta `PENDING`), else the run fails.
// Goal (issue 47): at most 2 ms added at p99.

extension BenchmarkMetric {
    static let addedP99 = BenchmarkMetric.custom("added p99 µs", polarity: .prefersSmaller, useScalingFactor: false)
    static let addedCPU = BenchmarkMetric.custom(
        "added CPU µs/decision", polarity: .prefersSmaller, useScalingFactor: false)
    static let gatewayP99 = BenchmarkMetric.custom("gateway p99 µs", polarity: .prefersSmaller, useScalingFactor: false)
    static let bareP99 = BenchmarkMetric.custom("bare p99 µs", polarity: .prefersSmaller, useScalingFactor: false)
    static let saturationRatio = BenchmarkMetric.custom(
        "saturated throughput ratio ‰", polarity: .prefersLarger, useScalingFactor: false)
}

let benchmarks: @Sendable () -> Void = {
    for kind in SimulatedAuthorizations.kinds {
        Benchmark(
            "authorization/\(kind)/\(AuthorizationLoad.rate)-per-second",
            configuration: .init(
                metrics: [.addedP99, .addedCPU, .gatewayP99, .bareP99, .saturationRatio],
                warmupIterations: 0, scalingFactor: .one, maxDuration: .seconds(1), maxIterations: 1
            )
        ) { benchmark in
            do {
                let report = try await AuthorizationLoad.run(kind: kind)
                print(report.text)
                benchmark.measurement(.addedP99, Int(report.addedP99Microseconds.rounded()))
                benchmark.measurement(.addedCPU, Int(report.addedCPUMicroseconds.rounded()))
                benchmark.measurement(.gatewayP99, Int(report.gateway.p99Microseconds.rounded()))
                benchmark.measurement(.bareP99, Int(report.bare.p99Microseconds.rounded()))
                benchmark.measurement(.saturationRatio, Int((report.saturationRatio * 1000).rounded()))
            } catch {
                benchmark.error("authorization/\(kind) failed: \(error)")
            }
        }
    }
}

/// One side's figures at a fixed rate.
struct PacedSide: Sendable {
    var label: String
    var requests: Int
    var failures: Int
    var firstFailure: String?
    var p50Microseconds: Double
    var p99Microseconds: Double
    var cpuMicrosecondsPerRequest: Double
}

struct AuthorizationReport: Sendable {
    var kind: String
    var bare: PacedSide
    var gateway: PacedSide
    var bareSaturated: Double
    var gatewaySaturated: Double

    var addedP99Microseconds: Double { gateway.p99Microseconds - bare.p99Microseconds }
    var addedCPUMicroseconds: Double { gateway.cpuMicrosecondsPerRequest - bare.cpuMicrosecondsPerRequest }
    var saturationRatio: Double { bareSaturated > 0 ? gatewaySaturated / bareSaturated : 0 }

    var text: String {
        func line(_ side: PacedSide) -> String {
            String(
                format: "  %-8@ %5d requests at %d/s: p50 %7.0f µs, p99 %7.0f µs, CPU %5.0f µs a request, %d failed%@",
                side.label, side.requests, AuthorizationLoad.rate, side.p50Microseconds, side.p99Microseconds,
                side.cpuMicrosecondsPerRequest,
                side.failures, side.firstFailure.map { " (first: \($0))" } ?? "")
        }
        return [
            "authorization/\(kind):", line(bare), line(gateway),
            String(
                format: "  added by the gateway: p99 %.0f µs (goal ≤ 2,000), CPU %.0f µs a decision",
                addedP99Microseconds,
                addedCPUMicroseconds),
            String(
                format: "  saturated (128 in flight, 3 s): bare %.0f/s, gateway %.0f/s, gateway ÷ bare %.3f",
                bareSaturated,
                gatewaySaturated, saturationRatio),
        ].joined(separator: "\n")
    }
}

enum AuthorizationLoad {
    /// Requests a second: 1,000 (the issue's figure), or `CARDGATEWAY_AUTHORIZATION_RATE`.
    static let rate =
        ProcessInfo.processInfo.environment["CARDGATEWAY_AUTHORIZATION_RATE"].flatMap(Int.init)
        .map { max(1, min($0, 10_000)) } ?? 1_000
    static let warmup = Duration.seconds(1)
    static let measured = Duration.seconds(5)
    static let saturatedCallers = 128
    static let saturatedFor = Duration.seconds(3)

    /// The provider's approval, as a fixed body: what the bare route answers to every request (its room's
    /// ``ExampleNetwork/approval``).
    static func fixedApproval(_ kind: String) -> (body: String, headers: HTTPFields) {
        var headers: HTTPFields = [.contentType: "application/json"]
        let approval = SimulatedAuthorizations.network(kind)?.approval ?? (body: "{}", headers: [:])
        for (name, value) in approval.headers.sorted(by: { $0.key < $1.key }) {
            guard let field = HTTPField.Name(name) else { continue }
            headers[field] = value
        }
        return (approval.body, headers)
    }

    static func run(kind: String) async throws -> AuthorizationReport {
        let simulators = EmbeddedSimulators()
        guard let simulator = SimulatedAuthorizations.simulator(kind, in: simulators),
            let room = SimulatedAuthorizations.room(kind), let network = room.network
        else { throw BenchmarkFailure("no simulated network for \(kind)") }
        let card = network.defaultCard
        let currency = network.currency
        let instance = room.instance
        return try await simulators.run { running in
            let gateway = try running.gateway()
            var configuration = ProvisioningServer.Configuration()
            configuration.authorizationDecider = ClosureAuthorizationDecider { _ in .approve() }
            let server = ProvisioningServer(
                gateway: gateway, directory: InMemoryCardDirectory(accounts: DemoUsers.accounts),
                configuration: configuration)
            return try await withAuthorizationEndpoint(server) { gatewayPort in
                try await withBareEndpoint(kind) { barePort in
                    func order(_ port: Int, path: String) -> AuthorizationOrder {
                        AuthorizationOrder(
                            url: "http://127.0.0.1:\(port)\(path)", card: card, amount: 1_250, currency: currency,
                            merchant: .init(name: "Corner Shop", categoryCode: "5411", country: "US", city: "Seattle"))
                    }
                    let bareOrder = order(barePort, path: "/bare")
                    let gatewayOrder = order(gatewayPort, path: "/authorizations/\(instance)")
                    let bareSend: @Sendable () async -> String? = {
                        await answered(kind, simulator.authorize(bareOrder), expectApproval: false)
                    }
                    let gatewaySend: @Sendable () async -> String? = {
                        await answered(kind, simulator.authorize(gatewayOrder), expectApproval: true)
                    }
                    let bare = await paced("bare", bareSend)
                    let gatewaySide = await paced("gateway", gatewaySend)
                    let bareSaturated = await saturated(bareSend)
                    let gatewaySaturated = await saturated(gatewaySend)
                    return AuthorizationReport(
                        kind: kind, bare: bare, gateway: gatewaySide, bareSaturated: bareSaturated,
                        gatewaySaturated: gatewaySaturated)
                }
            }
        }
    }

    /// nil when the network got an answer (an approval recorded as such, when `expectApproval`); else why not.
    static func answered(_ kind: String, _ response: SimulatedResponse?, expectApproval: Bool) -> String? {
        guard let response else { return "the simulator plays no network" }
        guard response.status == 200 else { return "the simulator refused the order (HTTP \(response.status))" }
        guard let recorded = try? RecordedAuthorization(kind: kind, json: try? JSONValue.parse(response.body)) else {
            return "the simulator's record could not be read"
        }
        if recorded.timedOut { return "the provider timed out: \(recorded.summary)" }
        if expectApproval && !recorded.approved { return "not approved: \(recorded.summary)" }
        return nil
    }

    /// `send` at `rate` a second, open-loop: `warmup` unmeasured, then `measured`.
    static func paced(_ label: String, _ send: @escaping @Sendable () async -> String?) async -> PacedSide {
        let clock = ContinuousClock()
        let interval = Duration.seconds(1) / rate
        let warmupCount = Int(warmup / interval)
        let measuredCount = Int(measured / interval)
        let start = clock.now + .milliseconds(10)
        var cpuBefore = 0.0
        var latencies: [Duration] = []
        latencies.reserveCapacity(measuredCount)
        var failures = 0
        var firstFailure: String?
        await withTaskGroup(of: (Int, Duration, String?).self) { group in
            for index in 0..<(warmupCount + measuredCount) {
                let due = start + interval * index
                try? await clock.sleep(until: due)
                if index == warmupCount { cpuBefore = processCPUMicroseconds() }
                group.addTask {
                    let failure = await send()
                    return (index, clock.now - due, failure)
                }
            }
            for await (index, latency, failure) in group where index >= warmupCount {
                latencies.append(latency)
                if let failure {
                    failures += 1
                    if firstFailure == nil { firstFailure = failure }
                }
            }
        }
        let cpu = processCPUMicroseconds() - cpuBefore
        latencies.sort()
        func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            let value = latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
            return Double(value.components.seconds) * 1e6 + Double(value.components.attoseconds) / 1e12
        }
        return PacedSide(
            label: label, requests: latencies.count, failures: failures, firstFailure: firstFailure,
            p50Microseconds: percentile(0.50), p99Microseconds: percentile(0.99),
            cpuMicrosecondsPerRequest: latencies.isEmpty ? 0 : cpu / Double(latencies.count))
    }

    /// Requests a second with `saturatedCallers` callers, each sending again as soon as its answer arrives.
    static func saturated(_ send: @escaping @Sendable () async -> String?) async -> Double {
        let clock = ContinuousClock()
        let end = clock.now + saturatedFor
        let counts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<saturatedCallers {
                group.addTask {
                    var answered = 0
                    while clock.now < end {
                        if await send() == nil { answered += 1 }
                    }
                    return answered
                }
            }
            return await group.reduce(0, +)
        }
        return Double(counts) / (Double(saturatedFor.components.seconds))
    }

    /// Runs a Hummingbird server on 127.0.0.1 (a free port) whose `POST /bare` answers `kind`'s fixed approval.
    static func withBareEndpoint<R: Sendable>(
        _ kind: String, _ body: (_ port: Int) async throws -> R
    ) async throws -> R {
        let approval = fixedApproval(kind)
        let router = Router()
        router.post("/bare") { _, _ in
            Response(
                status: .ok, headers: approval.headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: approval.body)))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) })
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { continuation.finish() }
                try await app.runService()
            }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            return try await body(port)
        }
    }

    /// This process's CPU time so far (user + system), in microseconds.
    static func processCPUMicroseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func micros(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
        return micros(usage.ru_utime) + micros(usage.ru_stime)
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
