import CardGateway
import Foundation
import HTTPTypes
import Synchronization

/// What every room's corpus recorder shares (`Tests/<Name>Tests/<Name>FuzzCorpusTests.swift`): each response
/// harness's operations run against the room's simulator and every answer (status and body) becomes a file of
/// `Fuzz/Corpus/<name>-responses/`; the simulator's signed webhooks become webhook seeds. The recorders are off unless
/// `CARDGATEWAY_RECORD_FUZZ_CORPUS=1`:
///
///     CARDGATEWAY_RECORD_FUZZ_CORPUS=1 swift test --filter FuzzCorpus
///
/// The simulators run on the harnesses' fixed clock (``FuzzClock``), so the recorded timestamps are the ones the
/// harnesses check against, and the operations carry fixed idempotency keys, so that recording again rewrites the
/// same bytes.
package enum FuzzCorpus {
    /// Whether this run records (`CARDGATEWAY_RECORD_FUZZ_CORPUS=1`).
    package static let isRecording = ProcessInfo.processInfo.environment["CARDGATEWAY_RECORD_FUZZ_CORPUS"] == "1"

    /// The source tree's `Fuzz/` folder.
    package static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// Writes one seed: `Fuzz/Corpus/<target>/<name>`.
    package static func write(_ data: Data, target: String, name: String) throws {
        let folder = fuzzFolder.appendingPathComponent("Corpus").appendingPathComponent(target)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try data.write(to: folder.appendingPathComponent(name))
    }

    /// Passes requests to the simulator and keeps every answer.
    final class RecordingTransport: HTTPTransport {
        let inner: any HTTPTransport
        let exchanges = Mutex<[(request: HTTPRequest, status: Int, body: Data)]>([])

        init(inner: any HTTPTransport) { self.inner = inner }

        func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
            let response = try await inner.send(request, body: body, timeout: timeout)
            exchanges.withLock { $0.append((request, response.response.status.code, response.body)) }
            return response
        }

        func take() -> [(request: HTTPRequest, status: Int, body: Data)] {
            exchanges.withLock { all in
                defer { all = [] }
                return all
            }
        }
    }

    /// Runs every operation of `harness` against the simulator at `baseURL` (through `transport`) and writes one file
    /// per distinct response. A response to a read the harness answers itself (``FuzzOperation/fixed``) is not
    /// written: the operation's seed is its write's answer.
    package static func record(
        _ harness: ResponseHarness, through transport: any HTTPTransport, baseURL: URL
    ) async throws {
        let recording = RecordingTransport(inner: transport)
        let provider = try harness.makeProvider(transport: recording, baseURL: baseURL)
        var seen = Set<Data>()
        var names = Set<String>()
        for (index, operation) in harness.operations.enumerated() {
            // A fixed idempotency key: Marqeta's simulator answers with the idempotency token it was sent,
            // which is random without one.
            _ = try? await operation.body(
                provider, OperationContext(idempotencyKey: "fuzz-corpus-\(harness.name)-\(operation.name)"))
            for exchange in recording.take()
            where !operation.fixed.contains(where: { $0.matches(exchange.request) }) {
                let path = exchange.request.path?.split(separator: "?").first.map(String.init) ?? ""
                let isToken = harness.tokenPathSuffix.map { path.hasSuffix($0) } ?? false
                guard var seed = ResponseHarness.seed(operation: index, status: exchange.status, body: exchange.body)
                else { continue }
                if isToken { seed[0] |= 0x80 }
                guard seen.insert(seed).inserted else { continue }
                // A second distinct answer of the same status in one operation (the offer's card, then its
                // tokens) gets a numbered name instead of overwriting the first.
                let name = "\(operation.name)\(isToken ? "-token" : "")-\(exchange.status)"
                var unique = name
                var number = 2
                while !names.insert(unique).inserted {
                    unique = "\(name)-\(number)"
                    number += 1
                }
                try write(seed, target: "\(harness.name)-responses", name: unique)
            }
        }
    }

    /// A webhook the simulator signed, as two seeds of `<target>-webhooks`: `<name>`, the body (which the harness
    /// signs), and `<name>-raw`, the delivery as the simulator signed it (its `header`, found without regard to case).
    package static func webhook(
        _ target: String, _ name: String, _ signed: (headers: [(String, String)], body: Data), header: String
    ) throws {
        try write(WebhookHarness.seed(body: signed.body), target: "\(target)-webhooks", name: name)
        if let value = signed.headers.first(where: { $0.0.lowercased() == header.lowercased() })?.1 {
            try write(
                WebhookHarness.rawSeed(header: value, body: signed.body), target: "\(target)-webhooks",
                name: "\(name)-raw")
        }
    }
}
