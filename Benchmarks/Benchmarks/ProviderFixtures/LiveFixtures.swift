import AsyncHTTPClient
import CardGateway
import CardGatewayAsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore

// The simulators on loopback for `e2e/<kind>/gateway` and `e2e/<kind>/direct` (EndToEndBenchmarks) and for
// CallgrindProbe's e2e cases (wall time and `perf` outside package-benchmark).

public struct FixtureError: Error, CustomStringConvertible {
    public var description: String
}

/// Each provider's simulator, started once per process and left running, a gateway for it over the default
/// transport, and the request that gateway sends for the representative operation.
public actor LiveFixtures {
    public static let shared = LiveFixtures()

    public struct Entry: Sendable {
        public var subject: ProviderSubject
        public var run: SimulatorRun
        public var gateway: CardGateway
        /// The gateway's last request, prebuilt for AsyncHTTPClient: URL, method, headers and body.
        public var request: HTTPClientRequest

        /// The request on the transport's own client, its whole body read as the transport reads it.
        public func sendDirect() async throws -> Int {
            let response = try await AsyncHTTPClientTransport.sharedClient.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 8 * 1024 * 1024)
            guard (200..<300).contains(response.status.code) else {
                throw FixtureError(description: "status \(response.status.code)")
            }
            return body.readableBytes
        }
    }

    private var entries: [String: Entry] = [:]

    public func entry(_ kind: String) async throws -> Entry {
        if let entry = entries[kind] { return entry }
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
        let gateway = try subject.makeGateway(baseURL: run.baseURL, transport: AsyncHTTPClientTransport())
        let entry = Entry(subject: subject, run: run, gateway: gateway, request: request)
        // Both paths once, so that connections are open and tokens cached before anything is measured.
        try await subject.throughGateway(gateway, subject.target, OperationContext())
        _ = try await entry.sendDirect()
        entries[kind] = entry
        return entry
    }
}
