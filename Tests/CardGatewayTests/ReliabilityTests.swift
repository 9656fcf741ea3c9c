import CardGateway
import CardGatewayTesting
import Foundation
import HTTPTypes
import Synchronization
import SharedTestSupport
import Testing

/// A transport whose behaviour is set per host: answer, fail with 503, or stall until the test ends the stall with
/// ``timeOutStalled()`` (a stand-in for a provider that never answers, whose attempt then times out).
final class HostSwitchTransport: HTTPTransport {
    enum Mode: Sendable { case healthy, failing, stalled }
    private struct Stalls {
        var waiting: [CheckedContinuation<Void, Never>] = []
        var timedOut = false
    }
    private let modes = Mutex<[String: Mode]>([:])
    private let counts = Mutex<[String: Int]>([:])
    private let inFlight = Mutex<[String: (now: Int, max: Int)]>([:])
    private let stalls = Mutex(Stalls())

    func set(_ host: String, _ mode: Mode) { modes.withLock { $0[host] = mode } }
    /// Ends every stalled request (and every later one) with a timeout.
    func timeOutStalled() {
        let waiting = stalls.withLock { stalls in
            stalls.timedOut = true
            defer { stalls.waiting = [] }
            return stalls.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
    func requests(to host: String) -> Int { counts.withLock { $0[host, default: 0] } }
    func maxInFlight(to host: String) -> Int { inFlight.withLock { $0[host]?.max ?? 0 } }

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        let host = request.authority ?? ""
        counts.withLock { $0[host, default: 0] += 1 }
        inFlight.withLock { value in
            var entry = value[host] ?? (0, 0)
            entry.now += 1
            entry.max = max(entry.max, entry.now)
            value[host] = entry
        }
        defer { inFlight.withLock { $0[host]?.now -= 1 } }
        switch modes.withLock({ $0[host] ?? .healthy }) {
        case .healthy:
            return TransportResponse(response: HTTPResponse(status: .ok), body: Data("{}".utf8))
        case .failing:
            return TransportResponse(response: HTTPResponse(status: .serviceUnavailable), body: Data("{}".utf8))
        case .stalled:
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let timedOut = stalls.withLock { stalls in
                    if !stalls.timedOut { stalls.waiting.append(continuation) }
                    return stalls.timedOut
                }
                if timedOut { continuation.resume() }
            }
            throw TransportError(.timeout, "no response in time")
        }
    }
}

@Suite("Circuit breaker and bulkhead", .timeLimit(.minutes(5)))
struct ReliabilityTests {
    // MARK: The breaker on its own

    @Test(
        "opens after the threshold of consecutive failures, refuses at once, probes after the cool-down, closes on success"
    )
    func breakerStates() throws {
        let clock = ManualClock()
        let changes = Mutex<[String]>([])
        let breaker = CircuitBreaker(
            instance: "eu",
            settings: CircuitBreakerSettings(failureThreshold: 3, coolDown: .seconds(10), halfOpenProbes: 1),
            clock: clock.gatewayClock(),
            onStateChange: { from, to in changes.withLock { $0.append("\(from)→\(to)") } }
        )
        // A success resets the count; 4xx-like successes never count.
        for outcome in [CircuitBreaker.Outcome.failure, .failure, .success, .failure, .failure] {
            breaker.record(outcome, for: try breaker.admit())
        }
        #expect(breaker.state == .closed)
        breaker.record(.failure, for: try breaker.admit())
        #expect(breaker.snapshot.state.name == "open")
        #expect(breaker.snapshot.nextProbeIn == .seconds(10))

        let refusal = #expect(throws: CardGatewayError.self) { _ = try breaker.admit() }
        #expect(refusal?.code == .providerUnavailable)
        #expect(refusal?.isRetryable == true)
        #expect(refusal?.mayHaveReachedProvider == false)
        #expect(refusal?.retryAfter == .seconds(10))
        #expect(refusal?.provider == "eu")

        clock.advance(by: .seconds(4))
        #expect(#expect(throws: CardGatewayError.self) { _ = try breaker.admit() }?.retryAfter == .seconds(6))

        clock.advance(by: .seconds(6))
        #expect(breaker.state == .halfOpen)
        let probe = try breaker.admit()
        // One probe at a time: a second caller is refused while it is in flight.
        #expect(throws: CardGatewayError.self) { _ = try breaker.admit() }
        breaker.record(.failure, for: probe)
        #expect(breaker.snapshot.state.name == "open", "a failed probe opens it again")
        #expect(breaker.snapshot.timesOpened == 2)

        clock.advance(by: .seconds(10))
        breaker.record(.success, for: try breaker.admit())
        #expect(breaker.state == .closed)
        #expect(
            changes.withLock { $0 } == [
                "closed→open", "open→halfOpen", "halfOpen→open", "open→halfOpen", "halfOpen→closed",
            ])
    }

    @Test("an ignored outcome frees the probe without closing or opening")
    func ignoredProbe() throws {
        let clock = ManualClock()
        let breaker = CircuitBreaker(
            instance: "eu", settings: CircuitBreakerSettings(failureThreshold: 1, coolDown: .seconds(1)),
            clock: clock.gatewayClock())
        breaker.record(.failure, for: try breaker.admit())
        clock.advance(by: .seconds(1))
        breaker.record(.ignored, for: try breaker.admit())
        #expect(breaker.state == .halfOpen)
        breaker.record(.success, for: try breaker.admit())
        #expect(breaker.state == .closed)
    }

    @Test(
        "what counts: 408, 429 and 5xx; never another 4xx",
        arguments: [
            (200, CircuitBreaker.Outcome.success), (201, .success), (400, .success), (401, .success), (404, .success),
            (409, .success),
            (408, .failure), (429, .failure), (500, .failure), (502, .failure), (503, .failure), (504, .failure),
        ])
    func counting(status: Int, outcome: CircuitBreaker.Outcome) {
        #expect(CircuitBreakerMiddleware.outcome(status: status) == outcome)
    }

    @Test("a disabled breaker lets everything through")
    func disabled() throws {
        let breaker = CircuitBreaker(instance: "eu", settings: .disabled)
        for _ in 0..<20 { breaker.record(.failure, for: try breaker.admit()) }
        #expect(breaker.state == .closed)
    }

    // MARK: Through the gateway

    static func document(_ extra: String = "") -> String {
        """
        {
          "providers": {
            "slow": { "kind": "probe", "baseURL": "https://slow.probe.example/v1", "credentials": { "apiKey": "literal:k1" },
                      "maxAttempts": 1, "timeoutSeconds": 2 \(extra) },
            "fast": { "kind": "probe", "baseURL": "https://fast.probe.example/v1", "credentials": { "apiKey": "literal:k2" },
                      "maxAttempts": 1, "timeoutSeconds": 2 }
          },
          "routes": []
        }
        """
    }

    static func gateway(_ extra: String, transport: HostSwitchTransport, clock: ManualClock) throws -> CardGateway {
        let registry = ProviderRegistry([HTTPProbeProvider.factory])
        let configuration = try GatewayConfiguration.load(from: Data(document(extra).utf8), registry: registry)
        return try CardGateway(
            configuration: configuration, registry: registry, transport: transport, clock: clock.gatewayClock())
    }

    @Test(
        "a failing instance trips its breaker: later calls are refused without a request, and a recovered provider closes it"
    )
    func breakerThroughGateway() async throws {
        let transport = HostSwitchTransport()
        transport.set("slow.probe.example", .failing)
        let clock = ManualClock()
        let gateway = try Self.gateway(
            #", "circuitBreaker": {"failureThreshold": 3, "coolDownSeconds": 30}"#, transport: transport, clock: clock)
        let slow = try #require(gateway.instance(named: "slow"))
        for _ in 0..<3 {
            let error = await gatewayError { _ = try await gateway.card(CardRef(id: "c1"), via: .instance("slow")) }
            #expect(error?.code != nil)
        }
        #expect(transport.requests(to: "slow.probe.example") == 3)
        #expect(slow.breaker.state.name == "open")

        let refused = await gatewayError { _ = try await gateway.card(CardRef(id: "c1"), via: .instance("slow")) }
        #expect(refused?.code == .providerUnavailable)
        #expect(refused?.provider == "slow")
        #expect(refused?.providerKind == HTTPProbeProvider.kind)
        #expect(refused?.mayHaveReachedProvider == false)
        #expect(refused?.isRetryable == true)
        #expect(refused?.retryAfter == .seconds(30))
        #expect(transport.requests(to: "slow.probe.example") == 3, "an open breaker sends nothing")

        // The other instance is untouched.
        _ = try await gateway.card(CardRef(id: "c2"), via: .instance("fast"))
        #expect(gateway.instance(named: "fast")?.breaker.state == .closed)

        // The cool-down runs on the gateway's clock: a second short of it, the breaker still refuses.
        transport.set("slow.probe.example", .healthy)
        clock.advance(by: .seconds(29))
        #expect(
            await gatewayError { _ = try await gateway.card(CardRef(id: "c1"), via: .instance("slow")) }?.retryAfter
                == .seconds(1))
        clock.advance(by: .seconds(1))
        _ = try await gateway.card(CardRef(id: "c1"), via: .instance("slow"))
        #expect(slow.breaker.state == .closed)
        #expect(transport.requests(to: "slow.probe.example") == 4)
    }

    @Test(
        "isolation: with one instance stalled, a healthy one answers every call while the stalled one holds its calls",
        .timeLimit(.minutes(1)))
    func isolation() async throws {
        let transport = HostSwitchTransport()
        transport.set("slow.probe.example", .stalled)
        let clock = ManualClock()
        let gateway = try Self.gateway(
            #", "maxConcurrentRequests": 2, "circuitBreaker": {"failureThreshold": 2, "coolDownSeconds": 30}"#,
            transport: transport, clock: clock)
        let slow = try #require(gateway.instance(named: "slow"))

        // 12 calls to the stalled instance, each willing to wait 1.5 s on the gateway's clock.
        let deadline = clock.now + .milliseconds(1500)
        let (failures, failed) = AsyncStream.makeStream(of: CardGatewayError.Code?.self)
        let stalledCalls = Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        let error = await gatewayError {
                            _ = try await gateway.card(
                                CardRef(id: "s\(index)"), via: .instance("slow"),
                                context: OperationContext(deadline: deadline))
                        }
                        failed.yield(error?.code)
                    }
                }
            }
            failed.finish()
        }
        // Two hold the bulkhead's slots (stalled at the provider); the other ten wait in its line, each asleep on the
        // clock until its deadline.
        await clock.waitForSleepers(10)
        #expect(slow.bulkhead.waiting == 10)
        #expect(slow.bulkhead.inFlight == 2)

        // Meanwhile the healthy instance answers all of 40 calls at once, while no time passes on the gateway's clock:
        // nothing it does waits on the stalled instance.
        let before = clock.now
        let cards = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<40 {
                group.addTask { try await gateway.card(CardRef(id: "f\(index)"), via: .instance("fast")).ref.id }
            }
            var all: [String] = []
            for try await id in group { all.append(id) }
            return all
        }
        #expect(Set(cards) == Set((0..<40).map { "f\($0)" }))
        #expect(clock.now == before)
        #expect(slow.bulkhead.waiting == 10, "the stalled instance's calls are still held")

        // Their deadline passes: the ten in line are turned away unsent; then the two at the provider time out.
        var outcomes = failures.makeAsyncIterator()
        clock.advance(by: .milliseconds(1500))
        var turnedAway: [CardGatewayError.Code?] = []
        for _ in 0..<10 { turnedAway.append(await outcomes.next() ?? nil) }
        #expect(turnedAway == Array(repeating: .providerUnavailable, count: 10))
        transport.timeOutStalled()
        var timedOut: [CardGatewayError.Code?] = []
        while let code = await outcomes.next() { timedOut.append(code) }
        await stalledCalls.value
        #expect(timedOut == [.timeout, .timeout], "every call to the stalled instance fails")
        #expect(
            transport.maxInFlight(to: "slow.probe.example") == 2,
            "the bulkhead held the stalled instance to 2 requests in flight")
        #expect(transport.requests(to: "slow.probe.example") == 2, "calls beyond the bulkhead were never sent")
        #expect(slow.breaker.snapshot.timesOpened == 1, "the two timeouts opened the stalled instance's breaker")
        #expect(slow.bulkhead.inFlight == 0)
        #expect(slow.bulkhead.waiting == 0)
        #expect(slow.bulkhead.rejected == 10)

        // Recovery: the provider answers again, the cool-down passes on the clock, one probe closes the breaker.
        transport.set("slow.probe.example", .healthy)
        clock.advance(by: .seconds(30))
        _ = try await gateway.card(CardRef(id: "s-again"), via: .instance("slow"))
        #expect(slow.breaker.state == .closed)
    }

    @Test("a call over the bulkhead waits for a slot and gets it when one frees", .timeLimit(.minutes(1)))
    func bulkheadHandsOverSlots() async throws {
        let line = CountWatch()
        let clock = ManualClock()
        let bulkhead = Bulkhead(
            instance: "eu", limit: 1, clock: clock.gatewayClock(), observer: .init(waitingChanged: { line.set($0) }))
        try await bulkhead.acquire(until: .now + .seconds(5))
        let waiter = Task { try await bulkhead.acquire(until: .now + .seconds(5)) }
        await line.until(1)
        bulkhead.release()
        try await waiter.value
        #expect(bulkhead.inFlight == 1)
        bulkhead.release()
        #expect(bulkhead.inFlight == 0)

        // A full bulkhead turns a waiter away at its deadline, and a cancelled waiter leaves at once.
        try await bulkhead.acquire(until: .now + .seconds(5))
        let late = Task { try await bulkhead.acquire(until: clock.now + .milliseconds(50)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(50))
        let refused = await #expect(throws: CardGatewayError.self) { try await late.value }
        #expect(refused?.code == .providerUnavailable)
        #expect(refused?.isRetryable == true)
        let cancelled = Task { try await bulkhead.acquire(until: .now + .seconds(30)) }
        await line.until(1)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(bulkhead.waiting == 0)
        #expect(bulkhead.rejected == 1)
        bulkhead.release()
    }

    @Test(
        "breaker and bulkhead settings are checked at load, each at its path",
        arguments: [
            (#", "circuitBreaker": true"#, "providers.slow.circuitBreaker"),
            (#", "circuitBreaker": {"failureThreshold": 0}"#, "providers.slow.circuitBreaker.failureThreshold"),
            (#", "circuitBreaker": {"coolDownSeconds": -1}"#, "providers.slow.circuitBreaker.coolDownSeconds"),
            (#", "circuitBreaker": {"halfOpenProbes": 1.5}"#, "providers.slow.circuitBreaker.halfOpenProbes"),
            (#", "circuitBreaker": {"threshold": 3}"#, "providers.slow.circuitBreaker.threshold"),
            (#", "maxConcurrentRequests": 0"#, "providers.slow.maxConcurrentRequests"),
            (#", "maxConcurrentRequests": "8""#, "providers.slow.maxConcurrentRequests"),
            (#", "maxConcurrentRequests": 10001"#, "providers.slow.maxConcurrentRequests"),
            (#", "maxWaitingRequests": -1"#, "providers.slow.maxWaitingRequests"),
            (#", "maxWaitingRequests": 100001"#, "providers.slow.maxWaitingRequests"),
            (#", "maxWaitingRequests": true"#, "providers.slow.maxWaitingRequests"),
        ])
    func badSettings(extra: String, path: String) {
        let registry = ProviderRegistry([HTTPProbeProvider.factory])
        do {
            _ = try GatewayConfiguration.load(from: Data(Self.document(extra).utf8), registry: registry)
            Issue.record("expected \(path) to be refused")
        } catch let error as CardGatewayError {
            #expect(error.configurationProblems.map(\.path).contains(path), "\(error.configurationProblems)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(
        "defaults: breaker on (5 failures, 30 s, 1 probe), 1,024 requests in flight and 1,024 waiting; false turns the breaker off"
    )
    func defaults() throws {
        let registry = ProviderRegistry([HTTPProbeProvider.factory])
        let plain = try GatewayConfiguration.load(from: Data(Self.document().utf8), registry: registry)
        #expect(plain.providers["slow"]?.circuitBreaker == .default)
        #expect(plain.providers["slow"]?.maxConcurrentRequests == 1024)
        #expect(plain.providers["slow"]?.maxWaitingRequests == 1024)
        let off = try GatewayConfiguration.load(
            from: Data(Self.document(#", "circuitBreaker": false"#).utf8), registry: registry)
        #expect(off.providers["slow"]?.circuitBreaker.isEnabled == false)
    }
}
