import CardGateway
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// One HTTP exchange as it went over the wire: what was sent and what came back, bodies unmasked.
public struct WireExchange: Sendable {
    public var method: String
    /// Path and query, as sent.
    public var path: String
    public var requestBody: Data?
    /// Nil when no response came.
    public var status: Int?
    public var responseBody: Data?

    public init(method: String, path: String, requestBody: Data? = nil, status: Int? = nil, responseBody: Data? = nil) {
        self.method = method
        self.path = path
        self.requestBody = requestBody
        self.status = status
        self.responseBody = responseBody
    }
}

/// A transport that passes every request to `base` and keeps the whole exchange (unlike a simulator's journal,
/// which masks values), so that tests can check both directions against a provider's published document.
public final class WireRecorder: HTTPTransport {
    private let base: any HTTPTransport
    private let recorded = Mutex<[WireExchange]>([])

    public init(_ base: any HTTPTransport) { self.base = base }

    public var exchanges: [WireExchange] { recorded.withLock { $0 } }
    public var count: Int { recorded.withLock { $0.count } }

    public func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        var exchange = WireExchange(method: request.method.rawValue, path: request.path ?? "", requestBody: body)
        do {
            let response = try await base.send(request, body: body, timeout: timeout)
            exchange.status = response.response.status.code
            exchange.responseBody = response.body
            recorded.withLock { $0.append(exchange) }
            return response
        } catch {
            recorded.withLock { $0.append(exchange) }
            throw error
        }
    }
}

/// One item for `scripts/spec-conformance.py`: an exchange to match with the document's operation, or a body to
/// check against one of the document's named schemas (a webhook).
public struct SpecExchange: Sendable, Encodable {
    public var name: String
    /// The key of the document (in ``SpecConformanceRun/documents``).
    public var document: String
    public var method: String?
    public var path: String?
    public var status: Int?
    public var request: String?
    public var response: String?
    /// Whether the request is the adapter's (checked) or one a test made deliberately (raw, possibly wrong).
    public var checkRequest: Bool?
    public var checkResponse: Bool?
    public var schema: String?
    public var body: String?

    /// An exchange from the wire. `adapter` says whether the adapter sent the request (then it is checked too).
    public init(_ name: String, document: String, _ exchange: WireExchange, adapter: Bool) {
        self.name = name
        self.document = document
        self.method = exchange.method
        self.path = exchange.path
        self.status = exchange.status
        self.request = exchange.requestBody.map { String(decoding: $0, as: UTF8.self) }
        self.response = exchange.responseBody.map { String(decoding: $0, as: UTF8.self) }
        self.checkRequest = adapter
        self.checkResponse = true
    }

    /// A body checked against the document's schema `schema` (`components/schemas` or Swagger `definitions`).
    public init(_ name: String, document: String, schema: String, body: Data) {
        self.name = name
        self.document = document
        self.schema = schema
        self.body = String(decoding: body, as: UTF8.self)
    }
}

/// Everything one run of the script checks: one provider, its documents, every exchange.
public struct SpecConformanceRun: Sendable, Encodable {
    /// `adyen`, `bridge` or `marqeta`: selects the provider's error shape and named exceptions in the script.
    public var provider: String
    /// Document key → absolute path.
    public var documents: [String: String]
    /// The base URL's path, stripped from each exchange's path (`/bcl/v2`, `/v0`, `/v3`).
    public var basePath: String
    public var exchanges: [SpecExchange]
    /// A partial run checks a few exchanges only: a named exception none of them needed is not a finding.
    public var partial: Bool

    public init(
        provider: String, documents: [String: String], basePath: String, exchanges: [SpecExchange] = [],
        partial: Bool = false
    ) {
        self.provider = provider
        self.documents = documents
        self.basePath = basePath
        self.exchanges = exchanges
        self.partial = partial
    }

    /// Adds every exchange a recorder saw, named `prefix #n`.
    public mutating func add(_ recorder: WireRecorder, document: String, adapter: Bool, prefix: String) {
        for (index, exchange) in recorder.exchanges.enumerated() where exchange.status != nil {
            exchanges.append(
                SpecExchange(
                    "\(prefix) #\(index + 1) \(exchange.method) \(exchange.path)", document: document, exchange,
                    adapter: adapter))
        }
    }
}

/// What the script reported.
public struct SpecConformanceReport: Sendable {
    public var status: Int32
    public var output: String
    /// One line per finding (a request or answer that departs from the document, or a document contradiction no
    /// named exception covers).
    public var findings: [String]
    /// `METHOD /template STATUS` for each operation and status checked, `SCHEMA name` for each named schema.
    public var covered: Set<String>
    /// How many request and response bodies were validated (nil when the script printed no summary).
    public var requestBodies: Int?
    public var responseBodies: Int?
}

/// Validates recorded exchanges against a provider's published API document with the `jsonschema` Python package,
/// through `scripts/spec-conformance.py` (one process per run).
///
/// The interpreter is `CARDGATEWAY_PYTHON` (default `python3`); `scripts/official-clients-venv` makes one with
/// `jsonschema` installed (pinned in `scripts/official-clients-requirements.txt`), and `.ci/run` sets it. Without
/// `jsonschema` a developer's run skips the checks with that reason; in CI (`CI=true`) they fail instead.
public enum SpecConformance {
    /// The repository root, from this file's path.
    static func root(filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    public static var script: URL { root().appendingPathComponent("scripts/spec-conformance.py") }

    /// Returns when the validator can run. Otherwise it skips the test with the reason (a developer's run) or
    /// records a failure (CI), so a check that cannot run is never mistaken for one that passed.
    public static func requireValidator(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let python = OfficialClient.python
        if let probe = try? await OfficialClient.run([python, "-c", "import jsonschema"], timeout: .seconds(30)),
            probe.status == 0
        {
            return
        }
        let reason =
            "\(python) cannot import jsonschema: run scripts/official-clients-venv and set CARDGATEWAY_PYTHON to the path it prints"
        if OfficialClient.isCI {
            Issue.record("CI must run the spec-conformance checks, but: \(reason)", sourceLocation: sourceLocation)
        }
        try Test.cancel("skipped: \(reason)", sourceLocation: sourceLocation)
    }

    /// Runs the script over `run` and parses what it printed.
    public static func check(_ run: SpecConformanceRun) async throws -> SpecConformanceReport {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spec-conformance-\(UUID().uuidString).json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(run)
        try data.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        // CARDGATEWAY_SPEC_CONFORMANCE_DUMP=<folder> keeps each run's input there (`<provider>-<n exchanges>.json`),
        // to rerun the script by hand: `python3 scripts/spec-conformance.py <file>`.
        if let folder = ProcessInfo.processInfo.environment["CARDGATEWAY_SPEC_CONFORMANCE_DUMP"], !folder.isEmpty {
            try? data.write(
                to: URL(fileURLWithPath: folder).appendingPathComponent("\(run.provider)-\(run.exchanges.count).json"))
        }
        let result = try await OfficialClient.run(
            [OfficialClient.python, script.path, input.path], timeout: .seconds(120))
        var report = SpecConformanceReport(status: result.status, output: result.output, findings: [], covered: [])
        for line in result.output.split(separator: "\n").map(String.init) {
            if line.hasPrefix("FINDING ") {
                report.findings.append(String(line.dropFirst("FINDING ".count)))
            } else if line.hasPrefix("COVERED ") {
                report.covered.insert(String(line.dropFirst("COVERED ".count)))
            } else if line.hasPrefix("CHECKED ") {
                let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                if numbers.count >= 3 {
                    report.requestBodies = numbers[1]
                    report.responseBodies = numbers[2]
                }
            }
        }
        return report
    }

    /// Expects no finding, a clean exit, and every operation of `operations` (`METHOD /template STATUS`) checked.
    public static func expectConformance(
        _ report: SpecConformanceReport, covering operations: Set<String>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            report.findings == [],
            "departures from the published document:\n\(report.findings.joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        #expect(
            report.requestBodies != nil && (report.status == 0) == report.findings.isEmpty,
            "the validator did not run to its end:\n\(report.output)",
            sourceLocation: sourceLocation
        )
        let missing = operations.subtracting(report.covered)
        #expect(missing.isEmpty, "operations not exercised: \(missing.sorted())", sourceLocation: sourceLocation)
    }
}
