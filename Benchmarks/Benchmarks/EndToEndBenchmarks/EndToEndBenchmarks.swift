import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import CardGateway
import CardGatewayAsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import ProviderFixtures

// `e2e/<kind>/gateway` and `e2e/<kind>/direct`: the same request to the provider's simulator on 127.0.0.1 (run in
// this process, so both include the simulator's own work), once through `CardGateway` with every default
// (routing, circuit breaker, bulkhead, telemetry with the no-op metrics and tracer, no logger; the default
// `AsyncHTTPClientTransport`) and once as a bare AsyncHTTPClient request on the same client with the body and
// headers the gateway sent, prebuilt. gateway ÷ direct is the gateway's overhead on loopback. The operation is
// the card lookup; Trust Payments, which has none, its charge.

let benchmarks: @Sendable () -> Void = {
    for kind in ProviderSubject.kinds {
        endToEndBenchmark(kind: kind, direct: false)
        endToEndBenchmark(kind: kind, direct: true)
    }
}

func endToEndBenchmark(kind: String, direct: Bool) {
    Benchmark(
        "e2e/\(kind)/\(direct ? "direct" : "gateway")",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal],
            warmupIterations: 50,
            scalingFactor: .one,
            maxDuration: .seconds(2),
            maxIterations: 5_000,
            thresholds: [
                // The count includes the simulator's and NIO's work, which varies by a few between runs.
                .mallocCountTotal: .init(relative: [.p50: 5], absolute: [:]),
                .wallClock: .init(relative: [.p50: 100], absolute: [:]),
            ],
            setup: { _ = try await LiveFixtures.shared.entry(kind) }
        ).callgrindAware
    ) { benchmark in
        let entry: LiveFixtures.Entry
        do { entry = try await LiveFixtures.shared.entry(kind) } catch {
            benchmark.error("setup failed: \(error)")
            return
        }
        let context = OperationContext()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            do {
                try await callgrindMeasuredAsync {
                    if direct {
                        blackHole(try await entry.sendDirect())
                    } else {
                        try await entry.subject.throughGateway(entry.gateway, entry.subject.target, context)
                    }
                }
            } catch {
                benchmark.error("e2e/\(kind) failed: \(error)")
                return
            }
        }
        benchmark.stopMeasurement()
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

/// Each provider's simulator, started once per process and left running, a gateway for it over the default
/// transport, and the request that gateway sends for the representative operation.
actor LiveFixtures {
    static let shared = LiveFixtures()

    struct Entry: Sendable {
        var subject: ProviderSubject
        var run: SimulatorRun
        var gateway: CardGateway
        /// The gateway's last request, prebuilt for AsyncHTTPClient: URL, method, headers and body.
        var request: HTTPClientRequest

        /// The request on the transport's own client, its whole body read as the transport reads it.
        func sendDirect() async throws -> Int {
            let response = try await AsyncHTTPClientTransport.sharedClient.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 8 * 1024 * 1024)
            guard (200..<300).contains(response.status.code) else { throw FixtureError(description: "status \(response.status.code)") }
            return body.readableBytes
        }
    }

    private var entries: [String: Entry] = [:]

    func entry(_ kind: String) async throws -> Entry {
        if let entry = entries[kind] { return entry }
        guard let subject = ProviderSubject.named(kind) else { throw FixtureError(description: "no provider \(kind)") }
        let run = try await SimulatorRun.start(subject.simulator)
        let recorder = RecordingTransport(base: AsyncHTTPClientTransport())
        try await subject.throughGateway(try subject.makeGateway(baseURL: run.baseURL, transport: recorder), subject.target, OperationContext())
        guard let last = recorder.recorded.last, let scheme = last.request.scheme, let authority = last.request.authority, let path = last.request.path else {
            throw FixtureError(description: "the gateway sent nothing")
        }
        var request = HTTPClientRequest(url: "\(scheme)://\(authority)\(path)")
        request.method = .init(rawValue: last.request.method.rawValue)
        for field in last.request.headerFields { request.headers.add(name: field.name.rawName, value: field.value) }
        if let body = last.body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let gateway = try subject.makeGateway(baseURL: run.baseURL, transport: AsyncHTTPClientTransport())
        let entry = Entry(subject: subject, run: run, gateway: gateway, request: request)
        // Both paths once, so that connections are open and tokens cached before anything is measured.
        try await subject.throughGateway(gateway, subject.target, OperationContext())
        _ = try await entry.sendDirect()
        entries[kind] = entry
        return entry
    }
}
