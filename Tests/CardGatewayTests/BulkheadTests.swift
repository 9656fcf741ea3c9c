@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SharedTestSupport
import Synchronization
import Testing

/// A count the test can wait for (the bulkhead's line, the requests a transport or a server holds), instead of
/// polling: ``until(_:)`` returns once the count is, or becomes, the value asked for.
final class CountWatch: Sendable {
    private struct State {
        var count = 0
        var waiters: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    var count: Int { state.withLock { $0.count } }

    func set(_ count: Int) {
        let ready = state.withLock { state in
            state.count = count
            let ready = state.waiters.filter { $0.target == count }.map(\.continuation)
            state.waiters.removeAll { $0.target == count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    func increment() {
        let ready = state.withLock { state in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.target == count }.map(\.continuation)
            state.waiters.removeAll { $0.target == count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    func until(_ target: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.count == target { return true }
                state.waiters.append((target, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// A list several tasks append to.
final class Recorded<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

/// A gate that holds whoever waits at it until the test opens it.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, held: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let held = state.withLock { state in
            state.open = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let pass = state.withLock { state in
                if state.open { return true }
                state.held.append(continuation)
                return false
            }
            if pass { continuation.resume() }
        }
    }
}

/// A transport that holds every request until the test opens its gate, counting arrivals.
final class GateTransport: HTTPTransport {
    let arrivals = CountWatch()
    let gate = Gate()

    func open() { gate.open() }

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        arrivals.increment()
        await gate.wait()
        return TransportResponse(response: HTTPResponse(status: .ok), body: Data("{}".utf8))
    }
}

@Suite("Bulkhead: sizing, the bounded line, deadlines", .timeLimit(.minutes(1)))
struct BulkheadTests {
    static func document(_ extra: String = "", baseURL: String = "https://eu.probe.example/v1") -> String {
        """
        {"providers": {"eu": {"kind": "probe", "baseURL": "\(baseURL)", "credentials": {"apiKey": "literal:k1"},
                              "maxAttempts": 1 \(extra)}},
         "routes": []}
        """
    }

    static func gateway(
        _ extra: String = "", baseURL: String = "https://eu.probe.example/v1", transport: any HTTPTransport
    ) throws -> CardGateway {
        let registry = ProviderRegistry([HTTPProbeProvider.factory])
        let configuration = try GatewayConfiguration.load(
            from: Data(document(extra, baseURL: baseURL).utf8), registry: registry)
        return try CardGateway(configuration: configuration, registry: registry, transport: transport)
    }

    @Test(
        "defaults: 1,024 in flight and a line of 1,024 per instance; the shared client's pool per host is at least the bulkhead; both configurable"
    )
    func defaults() throws {
        let registry = ProviderRegistry([HTTPProbeProvider.factory])
        let plain = try GatewayConfiguration.load(from: Data(Self.document().utf8), registry: registry)
        #expect(plain.providers["eu"]?.maxConcurrentRequests == 1024)
        #expect(plain.providers["eu"]?.maxWaitingRequests == 1024)
        let set = try GatewayConfiguration.load(
            from: Data(Self.document(#", "maxConcurrentRequests": 10000, "maxWaitingRequests": 0"#).utf8),
            registry: registry)
        #expect(set.providers["eu"]?.maxConcurrentRequests == 10_000)
        #expect(set.providers["eu"]?.maxWaitingRequests == 0)
        let gateway = try CardGateway(configuration: set, registry: registry, transport: ScriptedTransport([]))
        #expect(gateway.instance(named: "eu")?.bulkhead.limit == 10_000)
        #expect(gateway.instance(named: "eu")?.bulkhead.maxWaiting == 0)
        // The pool of the default transport's client allows every slot of the largest bulkhead a connection.
        #expect(
            AsyncHTTPClientTransport.configuration().connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit
                >= Bulkhead.maximumLimit)
        #expect(AsyncHTTPClientTransport.connectionsPerHost >= Bulkhead.defaultLimit)
    }

    @Test(
        "on loopback, the default gateway and transport have 64 calls at the provider at once (AsyncHTTPClient's own default pool allows 8)"
    )
    func sixtyFourAtOnce() async throws {
        let calls = 64
        let server = CountWatch()
        let release = Gate()
        let router = Router()
        router.get("/v1/cards/:id") { request, _ -> Response in
            server.increment()
            // Every handler waits until all the calls have arrived: with fewer connections than calls, the
            // barrier would never fill and the calls would meet their deadline instead.
            if server.count >= calls { release.open() }
            await release.wait()
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let gateway = try Self.gateway(
                baseURL: "http://127.0.0.1:\(port)/v1", transport: AsyncHTTPClientTransport())
            let results = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<calls {
                    group.addTask {
                        let context = OperationContext(deadline: .now + .seconds(20))
                        return
                            (try? await gateway.card(CardRef(id: "c\(index)"), via: .instance("eu"), context: context))
                            != nil
                    }
                }
                var succeeded = 0
                for await ok in group where ok { succeeded += 1 }
                return succeeded
            }
            release.open()
            #expect(results == calls, "every call answered once all \(calls) were at the server together")
            #expect(server.count == calls)
            #expect(gateway.instance(named: "eu")?.bulkhead.inFlight == 0)
        }
    }

    @Test("a full line refuses at once: retryable providerUnavailable, never sent, and the call in flight is unharmed")
    func fullLineRefusesAtOnce() async throws {
        let transport = GateTransport()
        let gateway = try Self.gateway(#", "maxConcurrentRequests": 1, "maxWaitingRequests": 0"#, transport: transport)
        let first = Task { try await gateway.card(CardRef(id: "a"), via: .instance("eu")) }
        await transport.arrivals.until(1)

        let refused = await gatewayError { _ = try await gateway.card(CardRef(id: "b"), via: .instance("eu")) }
        #expect(refused?.code == .providerUnavailable)
        #expect(refused?.isRetryable == true)
        #expect(refused?.mayHaveReachedProvider == false)
        #expect(refused?.provider == "eu")
        #expect(refused?.providerKind == HTTPProbeProvider.kind)
        #expect(transport.arrivals.count == 1, "the refused call was never sent")
        #expect(gateway.instance(named: "eu")?.bulkhead.rejected == 1)

        transport.open()
        #expect(try await first.value.ref.id == "a")
        _ = try await gateway.card(CardRef(id: "c"), via: .instance("eu"))
        #expect(transport.arrivals.count == 2)
        #expect(gateway.instance(named: "eu")?.bulkhead.inFlight == 0)
    }

    @Test("the line is first come, first served, and refuses the one past its length")
    func lineOrder() async throws {
        let line = CountWatch()
        let bulkhead = Bulkhead(
            instance: "eu", limit: 1, maxWaiting: 2, observer: .init(waitingChanged: { line.set($0) }))
        try await bulkhead.acquire(until: .now + .seconds(30))
        let order = Recorded<Int>()
        let first = Task {
            try await bulkhead.acquire(until: .now + .seconds(30))
            order.append(1)
        }
        await line.until(1)
        let second = Task {
            try await bulkhead.acquire(until: .now + .seconds(30))
            order.append(2)
        }
        await line.until(2)
        let third = await gatewayError { try await bulkhead.acquire(until: .now + .seconds(30)) }
        #expect(third?.code == .providerUnavailable)
        #expect(third?.mayHaveReachedProvider == false)
        #expect(bulkhead.waiting == 2)

        bulkhead.release()
        try await first.value
        #expect(order.all == [1])
        #expect(bulkhead.waiting == 1)
        bulkhead.release()
        try await second.value
        #expect(order.all == [1, 2])
        bulkhead.release()
        #expect(bulkhead.inFlight == 0)
        #expect(bulkhead.rejected == 1)
    }

    @Test("a call that waited for its slot goes on with what is left of its attempt's time, not a fresh timeout")
    func waitKeepsDeadline() async throws {
        let clock = ManualClock()
        let line = CountWatch()
        let waits = Recorded<(Duration, Bulkhead.WaitOutcome)>()
        let bulkhead = Bulkhead(
            instance: "eu", limit: 1, clock: clock.gatewayClock(),
            observer: .init(
                waitingChanged: { line.set($0) }, waited: { duration, outcome in waits.append((duration, outcome)) })
        )
        let transport = ScriptedTransport([], fallback: .json(200, "{}"))
        let client = try ProviderHTTPClient(
            instance: "eu", kind: "probe", baseURL: URL(string: "https://eu.probe.example/v1")!, transport: transport,
            timeout: .seconds(30),
            retry: RetryPolicy(maxAttempts: 1), attemptMiddlewares: [BulkheadMiddleware(bulkhead)]
        )
        // A first call has a slot at once and its whole 30 s.
        _ = try await client.send(ProviderRequest(.get, "/cards/a", operation: "read"), context: OperationContext())
        #expect(transport.requests.map(\.timeout) == [.seconds(30)])

        // The slot is held; the next call waits 10 s (on the test's clock) and then has 20 s left.
        try await bulkhead.acquire(until: clock.now + .seconds(60))
        let waiting = Task {
            try await client.send(ProviderRequest(.get, "/cards/b", operation: "read"), context: OperationContext())
        }
        await line.until(1)
        clock.advance(by: .seconds(10))
        bulkhead.release()
        #expect(try await waiting.value.status == 200)
        #expect(transport.requests.map(\.timeout) == [.seconds(30), .seconds(20)])
        #expect(waits.all.map(\.0) == [.zero, .zero, .seconds(10)])
        #expect(waits.all.map(\.1) == [.acquired, .acquired, .acquired])

        // A call whose deadline is already past when it reaches a full bulkhead is refused without waiting.
        try await bulkhead.acquire(until: clock.now + .seconds(60))
        let late = await gatewayError { try await bulkhead.acquire(until: clock.now) }
        #expect(late?.code == .providerUnavailable)
        #expect(waits.all.last?.1 == .expired)
        bulkhead.release()
        #expect(bulkhead.inFlight == 0)
        #expect(transport.requestCount == 2)
    }

    @Test("a provider's 429 is honoured: the retry waits its Retry-After, holding no slot meanwhile")
    func rateLimitedHoldsNoSlot() async throws {
        let bulkhead = Bulkhead(instance: "eu", limit: 1)
        let clock = ManualClock()
        let transport = ScriptedTransport([.json(429, "{}", headers: ["Retry-After": "3"]), .json(200, "{}")])
        let client = try ProviderHTTPClient(
            instance: "eu", kind: "probe", baseURL: URL(string: "https://eu.probe.example/v1")!, transport: transport,
            retry: RetryPolicy(
                maxAttempts: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2), maxRetryAfter: .seconds(60)),
            clock: clock.gatewayClock(), attemptMiddlewares: [BulkheadMiddleware(bulkhead)]
        )
        let call = Task {
            try await client.send(ProviderRequest(.get, "/cards/a", operation: "read"), context: OperationContext())
        }
        // The retry is asleep on the clock, waiting out the provider's Retry-After.
        await clock.waitForSleepers(1)
        #expect(clock.sleeps == [.seconds(3)], "the provider's Retry-After, not the backoff")
        #expect(bulkhead.inFlight == 0, "no slot is held while waiting out the provider's Retry-After")
        #expect(transport.requestCount == 1)
        clock.advance(by: .seconds(3))
        let response = try await call.value
        #expect(response.status == 200)
        #expect(response.attempts == 2)
        #expect(transport.requestCount == 2)
        #expect(bulkhead.inFlight == 0)
    }
}
