@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import Synchronization

/// A request as a test transport saw it.
public struct RecordedRequest: Sendable {
    public var request: HTTPRequest
    public var body: Data?
    public var timeout: Duration

    public var method: String { request.method.rawValue }
    /// Path and query, as sent.
    public var path: String { request.path ?? "" }
    /// The path without the query.
    public var pathWithoutQuery: String { String(path.split(separator: "?", maxSplits: 1).first ?? "") }
    /// The query items, decoded.
    public var queryItems: [(name: String, value: String)] {
        guard let query = path.split(separator: "?", maxSplits: 1).dropFirst().first else { return [] }
        return query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).removingPercentEncoding ?? String($0)
            }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }
    public func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { request.headerFields[$0] } }
    public var bodyText: String { body.map { String(decoding: $0, as: UTF8.self) } ?? "" }
    /// The body parsed as JSON.
    public var jsonBody: JSONValue? { body.flatMap { try? JSONValue.parse($0) } }
}

/// What a scripted transport does for one request.
public enum ScriptedReply: Sendable {
    case response(status: Int, headers: [String: String] = [:], body: Data = Data())
    case failure(TransportError)

    /// A JSON response from a string literal.
    public static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> ScriptedReply {
        var all = headers
        all["Content-Type"] = all["Content-Type"] ?? "application/json"
        return .response(status: status, headers: all, body: Data(text.utf8))
    }
}

/// A transport that answers from a script and records every request, for unit tests without a network.
/// When the script runs out it answers with `fallback` (by default, a test failure reported as a 599).
public final class ScriptedTransport: HTTPTransport {
    private struct State {
        var replies: [ScriptedReply]
        var recorded: [RecordedRequest] = []
    }

    private let state: Mutex<State>
    private let fallback: ScriptedReply?
    private let handler: (@Sendable (RecordedRequest) -> ScriptedReply?)?

    /// Replies in order.
    public init(_ replies: [ScriptedReply], fallback: ScriptedReply? = nil) {
        self.state = Mutex(State(replies: replies))
        self.fallback = fallback
        self.handler = nil
    }

    /// Replies computed from each request (nil falls back to the script).
    public init(handler: @escaping @Sendable (RecordedRequest) -> ScriptedReply?) {
        self.state = Mutex(State(replies: []))
        self.fallback = nil
        self.handler = handler
    }

    public var requests: [RecordedRequest] { state.withLock { $0.recorded } }
    public var requestCount: Int { state.withLock { $0.recorded.count } }

    /// Adds replies to the end of the script.
    public func enqueue(_ replies: ScriptedReply...) {
        state.withLock { $0.replies.append(contentsOf: replies) }
    }

    public func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        let recorded = RecordedRequest(request: request, body: body, timeout: timeout)
        let reply: ScriptedReply = state.withLock { state in
            state.recorded.append(recorded)
            if let computed = handler?(recorded) { return computed }
            if !state.replies.isEmpty { return state.replies.removeFirst() }
            return fallback ?? .response(status: 599, headers: [:], body: Data("{\"scripted\":\"no reply left\"}".utf8))
        }
        switch reply {
        case .failure(let error):
            throw error
        case .response(let status, let headers, let body):
            var fields = HTTPFields()
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
            }
            return TransportResponse(
                response: HTTPResponse(status: .init(code: status), headerFields: fields), body: body)
        }
    }
}

/// Wraps another transport and records what passes through.
public final class RecordingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let recorded = Mutex<[(RecordedRequest, Int?, Data?)]>([])

    public init(_ base: any HTTPTransport) { self.base = base }

    /// Each request with the status it got (nil when it failed).
    public var exchanges: [(request: RecordedRequest, status: Int?)] { recorded.withLock { $0.map { ($0.0, $0.1) } } }
    public var requests: [RecordedRequest] { exchanges.map(\.request) }
    /// The body of each answer, in the order of ``exchanges`` (nil when the request failed).
    public var responseBodies: [Data?] { recorded.withLock { $0.map(\.2) } }

    public func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        let entry = RecordedRequest(request: request, body: body, timeout: timeout)
        do {
            let response = try await base.send(request, body: body, timeout: timeout)
            recorded.withLock { $0.append((entry, response.response.status.code, response.body)) }
            return response
        } catch {
            recorded.withLock { $0.append((entry, nil, nil)) }
            throw error
        }
    }
}

extension ProviderHTTPClient {
    /// A client for unit tests: the given transport, no real sleeping between retries (a virtual ``ManualClock``
    /// that jumps to each back-off's end), a fixed jitter of 0.5.
    @_spi(AdapterSupport) public static func testing(
        instance: String = "test", kind: ProviderKind, baseURL: URL, transport: any HTTPTransport,
        timeout: Duration = .seconds(5),
        retry: RetryPolicy = RetryPolicy(
            maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2), maxRetryAfter: .seconds(60)),
        sleeps: SleepRecorder? = nil
    ) throws -> ProviderHTTPClient {
        let clock = ManualClock(advancesOnSleep: true, onSleep: { duration in sleeps?.record(duration) })
        return try ProviderHTTPClient(
            instance: instance, kind: kind, baseURL: baseURL, transport: transport, timeout: timeout, retry: retry,
            clock: clock.gatewayClock()
        )
    }
}

/// Records the delays a client asked to sleep for, instead of sleeping.
public final class SleepRecorder: Sendable {
    private let delays = Mutex<[Duration]>([])
    public init() {}
    public func record(_ delay: Duration) { delays.withLock { $0.append(delay) } }
    public var recorded: [Duration] { delays.withLock { $0 } }
}
