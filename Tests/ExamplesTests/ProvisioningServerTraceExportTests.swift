import CardGatewayAsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOFoundationCompat
import PaysafeSimulator
import ServiceLifecycle
import Subprocess
import Synchronization
import Testing

/// The built `provisioning-server` executable, on its embedded simulators, exporting its traces over OTLP/HTTP (JSON)
/// to a fake collector on 127.0.0.1: a request that carries a W3C `traceparent` gets a server span and the gateway's
/// spans in the caller's trace. Without the OpenTelemetry environment variables, nothing is exported.
@Suite("provisioning-server: OTLP trace export", .serialized, .timeLimit(.minutes(5)))
struct ProvisioningServerTraceExportTests {
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let callerSpanID = "00f067aa0ba902b7"
    static let aliceToken = "demo-token-alice-7f3a9c51"

    @Test("OTEL_EXPORTER_OTLP_ENDPOINT exports the server span and the gateway's spans in the caller's W3C trace")
    func exportsSpansInTheCallersTrace() async throws {
        let executable = try Self.executable()
        try await FakeCollector.run { collector in
            let server = try ServerProcess(executable: executable, environment: Self.exporting(to: collector))
            defer { server.kill() }
            let port = try await server.waitForPort()
            let status = try await Self.getCard(port: port, traceparent: "00-\(Self.traceID)-\(Self.callerSpanID)-01")
            #expect(status == 200)

            // The batch processor exports every 100 ms; the card span ends before the server span does.
            var spans: [ExportedSpan] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                spans = try collector.spans()
                if spans.contains(where: { $0.name == "cardgateway.card" }), spans.contains(where: { $0.kind == 2 }) {
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            let exitStatus = try await server.terminate()
            #expect(
                exitStatus == 0, "the server exits cleanly on SIGTERM, after the exporter flushed: \(server.stderr)")
            spans = try collector.spans()
            #expect(server.stderr.contains("exporting traces over OTLP"))
            #expect(
                collector.contentTypes().allSatisfy { $0.hasPrefix("application/json") }, "\(collector.contentTypes())")

            let inTrace = spans.filter { $0.traceID == Self.traceID }
            let serverSpan = try #require(
                inTrace.first { $0.kind == 2 }, "no server span in the caller's trace: \(spans.map(\.summary))")
            #expect(serverSpan.parentSpanID == Self.callerSpanID, "the server span's parent is the caller's span")
            let card = try #require(
                inTrace.first { $0.name == "cardgateway.card" },
                "no cardgateway.card span in the caller's trace: \(spans.map(\.summary))")
            #expect(card.attributes["cardgateway.operation"] == "card")
            #expect(card.attributes["cardgateway.outcome"] == "success")
            // The gateway's span descends from the server span (directly, or through spans the server adds).
            var ancestor = card.parentSpanID
            var chain: [String] = []
            while let id = ancestor, id != serverSpan.spanID, let parent = inTrace.first(where: { $0.spanID == id }) {
                chain.append(parent.name)
                ancestor = parent.parentSpanID
            }
            #expect(ancestor == serverSpan.spanID, "cardgateway.card is not under the server span (through \(chain))")
            let attempts = inTrace.filter { $0.parentSpanID == card.spanID && $0.kind == 3 }
            #expect(!attempts.isEmpty, "no attempt span under cardgateway.card: \(spans.map(\.summary))")
            // The attempts: Paysafe's OAuth token request, then the card's GET, each with the provider's status.
            #expect(attempts.contains { $0.name.hasPrefix("GET ") }, "\(attempts.map(\.summary))")
            #expect(
                attempts.allSatisfy { $0.attributes["http.response.status_code"] == "200" },
                "\(attempts.map(\.summary))")
            // No span carries a URL: the transport makes no spans of its own (AsyncHTTPClient's would hold the path).
            #expect(!spans.contains { $0.attributes["url.full"] != nil && $0.kind == 3 }, "\(spans.map(\.summary))")
            #expect(collector.resourceServiceNames().contains("provisioning-server"))
            // The caller's bearer token, and the provider's card id and customer behind the app's card alias, are
            // in no exported byte.
            for secret in [Self.aliceToken, PaysafeSimulator.Seed.activeCardID, PaysafeSimulator.Seed.euCustomer] {
                #expect(!collector.bodies().contains { $0.contains(secret) }, "\(secret) was exported")
            }
        }
    }

    @Test("OTEL_TRACES_EXPORTER=none switches the export off even with an endpoint set: nothing reaches the collector")
    func exportsNothingWhenSwitchedOff() async throws {
        let executable = try Self.executable()
        try await FakeCollector.run { collector in
            let server = try ServerProcess(
                executable: executable,
                environment: Self.exporting(to: collector).merging(["OTEL_TRACES_EXPORTER": "none"]) { $1 })
            defer { server.kill() }
            let port = try await server.waitForPort()
            #expect(
                try await Self.getCard(port: port, traceparent: "00-\(Self.traceID)-\(Self.callerSpanID)-01") == 200)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await server.terminate() == 0, "\(server.stderr)")
            #expect(collector.bodies().isEmpty)
            #expect(!server.stderr.contains("exporting traces over OTLP"))
        }
    }

    /// GET /v1/cards/everyday as Alice, with a W3C trace context.
    static func getCard(port: Int, traceparent: String) async throws -> Int {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer \(aliceToken)"
        fields[HTTPField.Name("traceparent")!] = traceparent
        let request = HTTPRequest(
            method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/v1/cards/everyday",
            headerFields: fields)
        return try await AsyncHTTPClientTransport().send(request, body: nil, timeout: .seconds(20)).response.status.code
    }

    /// The `provisioning-server` that `swift build` put beside this test bundle.
    /// The environment that points the server's OTLP export at `collector`, in JSON, flushing every 100 ms.
    static func exporting(to collector: FakeCollector) -> [String: String] {
        [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_BSP_SCHEDULE_DELAY": "100",
        ]
    }

    static func executable() throws -> URL {
        var directories = [
            Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        ]
        if let executableURL = Bundle.main.executableURL {
            directories.append(executableURL.deletingLastPathComponent())
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        directories.append(packageRoot.appendingPathComponent(".build/debug"))
        for directory in directories {
            let candidate = directory.appendingPathComponent("provisioning-server")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw TraceExportTestError(
            "provisioning-server was not built beside the tests (looked in \(directories.map(\.path))): run `swift build --build-tests`"
        )
    }
}

struct TraceExportTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One span of an OTLP/JSON export (`ExportTraceServiceRequest`), ids as lowercase hex.
struct ExportedSpan: Sendable {
    var traceID: String
    var spanID: String
    var parentSpanID: String?
    var name: String
    var kind: Int
    var attributes: [String: String]

    var summary: String { "\(name) kind=\(kind) trace=\(traceID) span=\(spanID) parent=\(parentSpanID ?? "-")" }

    /// An id as lowercase hex, whether the exporter wrote hex (the OTLP/JSON rule) or base64 (protobuf's JSON).
    static func hexID(_ value: String, length: Int) -> String {
        if value.count == length * 2, value.allSatisfy(\.isHexDigit) { return value.lowercased() }
        guard let bytes = Data(base64Encoded: value) else { return value }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// An OTLP/HTTP collector on 127.0.0.1 that keeps every body POSTed to /v1/traces.
final class FakeCollector: Sendable {
    let port: Int
    private let received: Received

    /// What the collector's route appends to.
    final class Received: Sendable {
        let items = Mutex<[(contentType: String, body: Data)]>([])
    }

    private init(port: Int, received: Received) {
        self.port = port
        self.received = received
    }

    static func run(_ body: @Sendable (FakeCollector) async throws -> Void) async throws {
        let received = Received()
        let router = Router()
        router.post("/v1/traces") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 16 << 20)
            let contentType = request.headers[.contentType] ?? ""
            received.items.withLock { $0.append((contentType, Data(buffer: bytes))) }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "{}")))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }
        )
        let group = ServiceGroup(services: [app], logger: Logger(label: "fake-otlp-collector"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { continuation.finish() }
                try await group.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port > 0 else {
                throw TraceExportTestError("the fake collector did not start")
            }
            let collector = FakeCollector(port: port, received: received)
            do {
                try await body(collector)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    func bodies() -> [String] { received.items.withLock { $0.map { String(decoding: $0.body, as: UTF8.self) } } }
    func contentTypes() -> [String] { received.items.withLock { $0.map(\.contentType) } }

    /// The `service.name` of every exported resource.
    func resourceServiceNames() -> [String] {
        received.items.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
            .flatMap { root -> [String] in
                (root["resourceSpans"] as? [[String: Any]] ?? []).compactMap { resourceSpans in
                    let resource = resourceSpans["resource"] as? [String: Any]
                    return Self.attributes(resource?["attributes"])["service.name"]
                }
            }
    }

    /// Every span of every export so far.
    func spans() throws -> [ExportedSpan] {
        var spans: [ExportedSpan] = []
        for (_, body) in received.items.withLock({ $0 }) {
            guard let root = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                throw TraceExportTestError("an export is not a JSON object")
            }
            for resourceSpans in root["resourceSpans"] as? [[String: Any]] ?? [] {
                for scopeSpans in resourceSpans["scopeSpans"] as? [[String: Any]] ?? [] {
                    for span in scopeSpans["spans"] as? [[String: Any]] ?? [] {
                        let parent = (span["parentSpanId"] as? String).flatMap {
                            $0.isEmpty ? nil : ExportedSpan.hexID($0, length: 8)
                        }
                        spans.append(
                            ExportedSpan(
                                traceID: ExportedSpan.hexID(span["traceId"] as? String ?? "", length: 16),
                                spanID: ExportedSpan.hexID(span["spanId"] as? String ?? "", length: 8),
                                parentSpanID: parent, name: span["name"] as? String ?? "",
                                kind: (span["kind"] as? NSNumber)?.intValue ?? Int(span["kind"] as? String ?? "") ?? 0,
                                attributes: Self.attributes(span["attributes"])
                            ))
                    }
                }
            }
        }
        return spans
    }

    /// OTLP key-value attributes, every value as text.
    static func attributes(_ value: Any?) -> [String: String] {
        var attributes: [String: String] = [:]
        for entry in value as? [[String: Any]] ?? [] {
            guard let key = entry["key"] as? String, let value = entry["value"] as? [String: Any],
                let first = value.first
            else { continue }
            attributes[key] = "\(first.value)"
        }
        return attributes
    }
}

/// The executable, started with `--port 0` and the environment given (without any OTEL_ variable of the test's own).
///
/// Spawned with swift-subprocess, never `Foundation.Process`: on Linux, `Process.run()` of our toolchain's Foundation
/// (Swift 6.3.1) can crash the whole test process (swift-corelibs-foundation PR #5472; docs/RELIABILITY.md, "A crash
/// in CI"). The process lives in a task that runs it to its end, reading both streams as they come; signals reach it
/// through that task.
final class ServerProcess: Sendable {
    private let out = Buffer()
    private let err = Buffer()
    private let exit = Exit()
    private let signals: AsyncStream<Subprocess.Signal>.Continuation
    private let task: Task<Int32, any Error>

    /// What one of the process's streams wrote so far.
    final class Buffer: Sendable {
        let data = Mutex(Data())
    }

    /// How the process ended, once it has.
    final class Exit: Sendable {
        let status = Mutex<String?>(nil)
    }

    /// - Parameter arguments: the server's arguments after `--host 127.0.0.1 --port 0`.
    init(executable: URL, environment: [String: String], arguments extra: [String] = ["--log-level", "notice"]) throws {
        var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("OTEL_") }
        variables.merge(environment) { $1 }
        let custom = Dictionary(
            uniqueKeysWithValues: variables.compactMap { key, value in
                Subprocess.Environment.Key(rawValue: key).map { ($0, value) }
            })
        // `env` runs the path as it is (it replaces itself with the server: the signals reach the server).
        let arguments = Arguments([executable.path, "--host", "127.0.0.1", "--port", "0"] + extra)
        let (requests, signals) = AsyncStream.makeStream(of: Subprocess.Signal.self)
        self.signals = signals
        let (out, err, exit) = (self.out, self.err, self.exit)
        task = Task {
            do {
                let result = try await Subprocess.run(
                    .path("/usr/bin/env"), arguments: arguments, environment: .custom(custom),
                    input: .none, output: .sequence, error: .sequence
                ) { execution in
                    try await withThrowingTaskGroup(of: Bool.self) { group in
                        group.addTask {
                            for try await chunk in execution.standardOutput {
                                chunk.withUnsafeBytes { bytes in out.data.withLock { $0.append(contentsOf: bytes) } }
                            }
                            return true
                        }
                        group.addTask {
                            for try await chunk in execution.standardError {
                                chunk.withUnsafeBytes { bytes in err.data.withLock { $0.append(contentsOf: bytes) } }
                            }
                            return true
                        }
                        group.addTask {
                            for await signal in requests { try? execution.send(signal: signal) }
                            return false
                        }
                        // Until both streams end (the process exited), then stop forwarding signals.
                        var open = 2
                        while open > 0, let stream = try await group.next() { if stream { open -= 1 } }
                        group.cancelAll()
                    }
                }
                exit.status.withLock { $0 = "\(result.terminationStatus)" }
                // As `Foundation.Process` gave it: the exit code, or the number of the signal.
                switch result.terminationStatus {
                case .exited(let code): return code
                case .signaled(let signal): return signal
                }
            } catch {
                exit.status.withLock { $0 = "\(error)" }
                throw error
            }
        }
    }

    var stdout: String { String(decoding: out.data.withLock { $0 }, as: UTF8.self) }
    var stderr: String { String(decoding: err.data.withLock { $0 }, as: UTF8.self) }

    /// The port from the `listening on http://127.0.0.1:PORT` line (the simulators start first: up to 60 s on a
    /// loaded machine).
    func waitForPort() async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            {
                return port
            }
            if let status = exit.status.withLock({ $0 }) {
                throw TraceExportTestError("provisioning-server exited (\(status)): \(stderr)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TraceExportTestError("provisioning-server did not listen within 60 s: \(stderr)")
    }

    /// SIGTERM, then the exit status (the server shuts down gracefully; at most 30 s).
    func terminate() async throws -> Int32 {
        signals.yield(.terminate)
        let task = self.task
        return try await withThrowingTaskGroup(of: Int32?.self) { group in
            group.addTask { try await task.value }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                return nil
            }
            defer { group.cancelAll() }
            guard let status = try await group.next() ?? nil else {
                throw TraceExportTestError("provisioning-server did not stop within 30 s of SIGTERM")
            }
            return status
        }
    }

    /// Ends the process if a test left it running: cancelling its task kills it (SIGKILL).
    func kill() {
        task.cancel()
    }
}
