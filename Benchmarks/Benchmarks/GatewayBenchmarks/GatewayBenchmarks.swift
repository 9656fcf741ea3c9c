import Benchmark
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayStripe
import Foundation
import HTTPTypes
import StripeSimulator

// One card lookup through the whole gateway (`CardGateway.card(_:via:)`: routing, the Stripe adapter building the
// request, the transport, decoding and mapping the answer):
//
// - against the Stripe simulator on 127.0.0.1 over real HTTP (AsyncHTTPClient, keep-alive). The simulator runs in
//   this process, so the allocation count includes the simulator's own work for the request;
// - against an in-process transport that answers with the simulator's recorded response, which leaves only the
//   gateway's and the adapter's own cost (no sockets, no server).

let benchmarks: @Sendable () -> Void = {
    let fixture = GatewayFixture()

    lookupBenchmark("CardGateway.card via Stripe simulator (HTTP on 127.0.0.1)", fixture: fixture, warmup: 20, seconds: 2, iterations: 5_000) {
        try $0.overHTTP()
    }
    lookupBenchmark("CardGateway.card via in-process canned transport (no I/O)", fixture: fixture, warmup: 100, seconds: 1, iterations: 20_000) {
        try $0.inProcess()
    }
}

/// One card lookup per iteration through the gateway `pick` returns.
func lookupBenchmark(
    _ name: String, fixture: GatewayFixture, warmup: Int, seconds: Int, iterations: Int,
    pick: @escaping @Sendable (GatewayFixture) throws -> CardGateway
) {
    Benchmark(
        name,
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal],
            warmupIterations: warmup,
            scalingFactor: .one,
            maxDuration: .seconds(seconds),
            maxIterations: iterations,
            thresholds: [
                // Wall-clock time on a shared 2-core VM is noisy: only a doubling counts. Allocations are the
                // precise signal (the count over HTTP varies by a few between runs, hence the relative tolerance).
                .wallClock: .init(relative: [.p50: 100], absolute: [:]),
                .mallocCountTotal: .init(relative: [.p50: 5], absolute: [:]),
            ],
            setup: { try await fixture.start() },
            teardown: { await fixture.stop() }
        )
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            do {
                blackHole(try await pick(fixture).card(GatewayFixture.card, via: GatewayFixture.route))
            } catch {
                benchmark.error("the card lookup failed: \(error)")
                return
            }
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

/// The Stripe simulator, run with `withSimulator` in a background task for as long as a benchmark needs it, and two
/// gateways configured for it.
final class GatewayFixture: @unchecked Sendable {
    static let card = CardRef(id: StripeSimulator.Seed.activeCardID)
    static let route = RouteTarget.key(RouteKey(issuer: "stripe-us"))

    private let lock = NSLock()
    private var running: (task: Task<Void, any Error>, stop: AsyncStream<Void>.Continuation)?
    private var httpGateway: CardGateway?
    private var cannedGateway: CardGateway?

    func overHTTP() throws -> CardGateway {
        guard let gateway = lock.withLock({ httpGateway }) else { throw FixtureError(description: "the fixture is not started") }
        return gateway
    }

    func inProcess() throws -> CardGateway {
        guard let gateway = lock.withLock({ cannedGateway }) else { throw FixtureError(description: "the fixture is not started") }
        return gateway
    }

    func start() async throws {
        await stop()
        let (stopSignal, stop) = AsyncStream<Void>.makeStream()
        let (ready, readyContinuation) = AsyncStream<SimulatorHandle>.makeStream()
        let task = Task {
            try await withSimulator(StripeSimulator(), host: "127.0.0.1") { handle in
                readyContinuation.yield(handle)
                readyContinuation.finish()
                for await _ in stopSignal {}
            }
        }
        var iterator = ready.makeAsyncIterator()
        guard let handle = await iterator.next() else {
            stop.finish()
            try await task.value
            throw FixtureError(description: "the simulator stopped before it listened")
        }
        lock.withLock { running = (task, stop) }

        var registry = ProviderRegistry()
        registry.register(.stripe)
        let document = Data(
            """
            {"providers": {"us-issuing": {"kind": "stripe", "environment": "sandbox", "baseURL": "\(handle.baseURL.absoluteString)",
                                          "credentials": {"secretKey": "literal:\(StripeSimulator.Credentials.default.testSecretKey)"}}},
             "routes": [{"when": {"issuer": "stripe-eu"}, "use": "us-issuing"},
                        {"when": {"bin": ["44000000-44009999", "510510"]}, "use": "us-issuing"},
                        {"when": {"issuer": "stripe-us"}, "use": "us-issuing"}]}
            """.utf8
        )
        let configuration = try GatewayConfiguration.load(from: document, registry: registry)

        // Over HTTP, recording the simulator's answer to replay it in process.
        let recorder = RecordingTransport(base: AsyncHTTPClientTransport())
        let http = try CardGateway(configuration: configuration, registry: registry, transport: recorder)
        let card = try await http.card(Self.card, via: Self.route)
        guard card.lastFour == "4242", let recorded = recorder.last else {
            throw FixtureError(description: "unexpected answer from the simulator: \(card)")
        }
        let canned = try CardGateway(configuration: configuration, registry: registry, transport: CannedTransport(reply: recorded))
        lock.withLock {
            httpGateway = try? CardGateway(configuration: configuration, registry: registry)
            cannedGateway = canned
        }
        guard lock.withLock({ httpGateway != nil }) else { throw FixtureError(description: "the gateway could not be built") }
    }

    func stop() async {
        let current = lock.withLock { () -> (task: Task<Void, any Error>, stop: AsyncStream<Void>.Continuation)? in
            defer {
                running = nil
                httpGateway = nil
                cannedGateway = nil
            }
            return running
        }
        guard let current else { return }
        current.stop.finish()
        _ = try? await current.task.value
    }
}

/// Passes requests on and keeps the last response.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    private let base: any HTTPTransport
    private let lock = NSLock()
    private var lastResponse: TransportResponse?

    init(base: any HTTPTransport) { self.base = base }

    var last: TransportResponse? { lock.withLock { lastResponse } }

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        let response = try await base.send(request, body: body, timeout: timeout)
        lock.withLock { lastResponse = response }
        return response
    }
}

/// Answers every request with the same response, as fast as possible.
struct CannedTransport: HTTPTransport {
    let reply: TransportResponse

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse { reply }
}
