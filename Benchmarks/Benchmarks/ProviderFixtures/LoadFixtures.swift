import AsyncHTTPClient
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation
import HeapProbe
import NIOCore
import Synchronization

// `load/<kind>/<callers>` (LoadBenchmarks): many callers at once against the provider's simulator on 127.0.0.1,
// every answer delayed by 100 ms (the simulation kit's `delay` fault), once through `CardGateway` with every
// default and once as bare AsyncHTTPClient requests on a client of their own whose pool does not limit them.

/// One side of a load run: what `callers` callers, each calling again as soon as its call returns, got in the
/// measured window.
public struct LoadSide: Sendable {
    public var label: String
    public var callers: Int
    /// Calls that ended in the measured window.
    public var calls: Int
    /// Calls that failed (started in the window).
    public var failures: Int
    public var seconds: Double
    /// Latency of the calls started in the window.
    public var p50: Duration
    public var p99: Duration
    /// Live heap bytes (glibc's `mallinfo2`) while the callers were busy, above the heap just before they started,
    /// per caller: what one call in flight costs, its share of new connections included. nil where unavailable.
    public var heapBytesPerCall: Double?
    /// The first failure's description (a gateway error's, which holds no secret), when a call failed.
    public var firstFailure: String? = nil

    public var callsPerSecond: Double { seconds > 0 ? Double(calls) / seconds : 0 }

    public var line: String {
        let heap = heapBytesPerCall.map { String(format: "%.0f B", $0) } ?? "n/a"
        return String(
            format: "%@ %5d callers: %8.1f calls/s, p50 %7.1f ms, p99 %7.1f ms, %d failed, heap per call in flight %@",
            label, callers, callsPerSecond, p50.loadMilliseconds, p99.loadMilliseconds, failures, heap
        ) + (firstFailure.map { "\n      first failure: \($0)" } ?? "")
    }
}

extension Duration {
    var loadMilliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}

/// The three sides of one load run and their ratios (gateway ÷ bare).
public struct LoadReport: Sendable {
    public var kind: String
    public var callers: Int
    public var direct: LoadSide
    /// The gateway with every default (1,024 requests in flight per instance, a line of 1,024).
    public var gateway: LoadSide
    /// The gateway with `maxConcurrentRequests` set to the number of callers (only when that is above the default).
    public var sized: LoadSide?

    public func throughputRatio(_ side: LoadSide) -> Double {
        direct.callsPerSecond > 0 ? side.callsPerSecond / direct.callsPerSecond : 0
    }
    public func p50Ratio(_ side: LoadSide) -> Double { ratio(side.p50, direct.p50) }
    public func p99Ratio(_ side: LoadSide) -> Double { ratio(side.p99, direct.p99) }
    private func ratio(_ a: Duration, _ b: Duration) -> Double {
        b > .zero ? a.loadMilliseconds / b.loadMilliseconds : 0
    }

    public var text: String {
        var lines = ["load/\(kind)/\(callers)", "  " + direct.line, "  " + gateway.line]
        lines.append(
            String(
                format: "    gateway ÷ bare: throughput %.3f, p50 %.3f, p99 %.3f", throughputRatio(gateway),
                p50Ratio(gateway), p99Ratio(gateway)))
        if let sized {
            lines.append("  " + sized.line)
            lines.append(
                String(
                    format: "    sized ÷ bare: throughput %.3f, p50 %.3f, p99 %.3f", throughputRatio(sized),
                    p50Ratio(sized), p99Ratio(sized)))
        }
        return lines.joined(separator: "\n")
    }
}

/// One provider's simulator with every answer delayed, a gateway over the default transport, and the request that
/// gateway sends prebuilt for a bare client with a pool of its own.
public final class LoadFixture: Sendable {
    /// The simulator's delay in milliseconds: 100, or `CARDGATEWAY_LOAD_DELAY_MS` (a run at 1,000 ms asks for a tenth
    /// of the calls a second from the same callers, so that concurrency is measured on a machine with CPU to spare).
    public static let delay = ProcessInfo.processInfo.environment["CARDGATEWAY_LOAD_DELAY_MS"].flatMap(Int.init) ?? 100
    public let subject: ProviderSubject
    public let run: SimulatorRun
    /// Every default: the shared client's pool, 1,024 requests in flight, a line of 1,024.
    public let gateway: CardGateway
    /// The gateway's request (URL, method, headers, body) for the bare client.
    public let request: HTTPClientRequest
    /// The baseline's own client: the shared client's settings with a pool that never limits the callers.
    public let bareClient: HTTPClient
    private let sweeper: Task<Void, Never>

    public static func start(_ kind: String) async throws -> LoadFixture {
        guard let subject = ProviderSubject.named(kind) else { throw FixtureError(description: "no provider \(kind)") }
        let run = try await SimulatorRun.start(subject.simulator)
        let recorder = RecordingTransport(base: AsyncHTTPClientTransport())
        try await subject.throughGateway(
            try subject.makeGateway(baseURL: run.baseURL, transport: recorder), subject.target, OperationContext())
        guard let last = recorder.recorded.last, let scheme = last.request.scheme,
            let authority = last.request.authority, let path = last.request.path
        else {
            throw FixtureError(description: "the gateway sent nothing")
        }
        var request = HTTPClientRequest(url: "\(scheme)://\(authority)\(path)")
        request.method = .init(rawValue: last.request.method.rawValue)
        for field in last.request.headerFields { request.headers.add(name: field.name.rawName, value: field.value) }
        if let body = last.body { request.body = .bytes(ByteBuffer(bytes: body)) }
        // Every answer from now on after the delay (100 ms), as a provider's latency.
        run.handle.faults.inject(FaultRule(count: Int.max, action: .delay(milliseconds: delay)))
        let gateway = try subject.makeGateway(baseURL: run.baseURL, transport: AsyncHTTPClientTransport())
        let bareClient = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: AsyncHTTPClientTransport.configuration(connectionsPerHost: 1_000_000)
        )
        // The simulator's journal keeps 10,000 entries and drops the oldest one per request once full, which costs
        // a copy of the whole journal per request: emptied often, it never fills.
        let journal = run.handle.journal
        let sweeper = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(200))
                journal.clear()
            }
        }
        return LoadFixture(
            subject: subject, run: run, gateway: gateway, request: request, bareClient: bareClient, sweeper: sweeper)
    }

    private init(
        subject: ProviderSubject, run: SimulatorRun, gateway: CardGateway, request: HTTPClientRequest,
        bareClient: HTTPClient, sweeper: Task<Void, Never>
    ) {
        self.subject = subject
        self.run = run
        self.gateway = gateway
        self.request = request
        self.bareClient = bareClient
        self.sweeper = sweeper
    }

    /// A gateway on the same simulator and the shared client with `maxConcurrentRequests` set.
    public func gateway(maxConcurrentRequests: Int) throws -> CardGateway {
        try subject.makeGateway(baseURL: run.baseURL, transport: AsyncHTTPClientTransport()) {
            $0.maxConcurrentRequests = maxConcurrentRequests
        }
    }

    /// The bare request on the baseline's client, its whole body read.
    public func sendBare() async throws {
        let response = try await bareClient.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 8 * 1024 * 1024)
        guard (200..<300).contains(response.status.code) else {
            throw FixtureError(description: "status \(response.status.code)")
        }
    }

    /// The bare side, the gateway with its defaults and, when the callers outnumber the default limit, the gateway
    /// sized to them, each for `warmup` then `seconds` measured.
    public func report(
        callers: Int, warmup: Duration = .seconds(1), seconds: Duration = .seconds(3)
    ) async throws -> LoadReport {
        let subject = self.subject
        let direct = await Self.measure("bare   ", callers: callers, warmup: warmup, seconds: seconds) {
            try await self.sendBare()
        }
        let gateway = self.gateway
        let defaults = await Self.measure("gateway", callers: callers, warmup: warmup, seconds: seconds) {
            try await subject.throughGateway(gateway, subject.target, OperationContext())
        }
        var sized: LoadSide?
        if callers > Bulkhead.defaultLimit {
            let sizedGateway = try self.gateway(maxConcurrentRequests: callers)
            sized = await Self.measure("sized  ", callers: callers, warmup: warmup, seconds: seconds) {
                try await subject.throughGateway(sizedGateway, subject.target, OperationContext())
            }
        }
        return LoadReport(kind: subject.kind, callers: callers, direct: direct, gateway: defaults, sized: sized)
    }

    public func stop() async {
        sweeper.cancel()
        try? await bareClient.shutdown()
        await run.stop()
    }

    /// Runs `callers` callers, each calling `call` again as soon as it returns, for `warmup` (not counted) and then
    /// `seconds`; samples the live heap every 100 ms of the measured window.
    public static func measure(
        _ label: String, callers: Int, warmup: Duration, seconds: Duration,
        call: @escaping @Sendable () async throws -> Void
    ) async -> LoadSide {
        let idleHeap = heapInUse()
        let firstFailure = FirstFailure()
        let start = ContinuousClock.now
        let from = start + warmup
        let end = from + seconds
        let sampler = Task { () -> [Int] in
            var samples: [Int] = []
            try? await Task.sleep(until: from, clock: .continuous)
            while ContinuousClock.now < end {
                if let heap = heapInUse() { samples.append(heap) }
                try? await Task.sleep(for: .milliseconds(100))
            }
            return samples
        }
        let (latencies, ended, failures) = await withTaskGroup(of: ([Duration], Int, Int).self) { group in
            for _ in 0..<callers {
                group.addTask {
                    var latencies: [Duration] = []
                    latencies.reserveCapacity(256)
                    var ended = 0
                    var failures = 0
                    while true {
                        let began = ContinuousClock.now
                        if began >= end { break }
                        var failed = false
                        do {
                            try await call()
                        } catch {
                            failed = true
                            firstFailure.keep(error)
                        }
                        let finished = ContinuousClock.now
                        if finished >= from && finished < end && !failed { ended += 1 }
                        if began >= from {
                            if failed { failures += 1 } else { latencies.append(finished - began) }
                        }
                    }
                    return (latencies, ended, failures)
                }
            }
            var all: [Duration] = []
            var ended = 0
            var failures = 0
            for await (latencies, count, failed) in group {
                all += latencies
                ended += count
                failures += failed
            }
            return (all, ended, failures)
        }
        let samples = await sampler.value.sorted()
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Duration {
            sorted.isEmpty ? .zero : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        var perCall: Double?
        if let idleHeap, !samples.isEmpty {
            perCall = Double(samples[samples.count / 2] - idleHeap) / Double(callers)
        }
        let window = Double(seconds.components.seconds) + Double(seconds.components.attoseconds) / 1e18
        return LoadSide(
            label: label, callers: callers, calls: ended, failures: failures, seconds: window, p50: percentile(0.50),
            p99: percentile(0.99),
            heapBytesPerCall: perCall, firstFailure: firstFailure.description
        )
    }

    /// Bytes the allocator has handed out and not had back (glibc: all arenas and mmapped blocks).
    static func heapInUse() -> Int? {
        let bytes = heap_probe_bytes_in_use()
        return bytes > 0 ? Int(bytes) : nil
    }
}

/// One load fixture per provider per process, started on first use.
public actor LoadFixtures {
    public static let shared = LoadFixtures()
    private var fixtures: [String: LoadFixture] = [:]

    public func fixture(_ kind: String) async throws -> LoadFixture {
        if let fixture = fixtures[kind] { return fixture }
        let fixture = try await LoadFixture.start(kind)
        fixtures[kind] = fixture
        return fixture
    }
}

/// The first error the callers of one side saw.
final class FirstFailure: Sendable {
    private let first = Mutex<String?>(nil)

    func keep(_ error: any Error) { first.withLock { $0 = $0 ?? String(describing: error) } }
    var description: String? { first.withLock { $0 } }
}
