import AdyenSimulator
@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Synchronization

@_spi(AdapterSupport) @testable import CardGatewayAdyen

/// Raw HTTP to a running simulator, through the core's AsyncHTTPClient transport (no adapter involved).
struct RawClient {
    let handle: SimulatorHandle
    let transport = AsyncHTTPClientTransport()

    struct Reply {
        var status: Int
        var headers: HTTPFields
        var body: Data
        var json: JSONValue? { try? JSONValue.parse(body) }
        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
        /// The `errorCode` of a RestServiceError body.
        var errorCode: String? { json?["errorCode"]?.stringValue }
        /// The decoded `sdkInput` of an activation-data answer.
        var sdkInput: Data? { json?["sdkInput"]?.stringValue.flatMap { Data(base64Encoded: $0) } }
    }

    /// The body of a POST whose `sdkOutput` answers `reply`'s `sdkInput`, as the provisioning SDK would
    /// (``AdyenSimulator/sdkOutput(answering:extra:)``), with `extra` appended to the output.
    func answering(_ reply: Reply, extra: String = "") -> Data {
        let output = AdyenSimulator.sdkOutput(answering: reply.sdkInput ?? Data(), extra: Data(extra.utf8))
        return json("{\"sdkOutput\":\"\(output.base64EncodedString())\"}")
    }

    /// Sends `method` to `path` below the base path (`/paymentInstruments/...`).
    func send(
        _ method: HTTPRequest.Method, _ path: String, apiKey: String? = AdyenSimulator.Credentials.apiKey,
        headers: [(String, String)] = [], body: Data? = nil
    ) async throws -> Reply {
        var fields = HTTPFields()
        if let apiKey { fields[HTTPField.Name("X-API-Key")!] = apiKey }
        if body != nil { fields[.contentType] = "application/json" }
        for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        let request = HTTPRequest(
            method: method, scheme: "http", authority: "127.0.0.1:\(handle.port)", path: "/bcl/v2" + path,
            headerFields: fields)
        let response = try await transport.send(request, body: body, timeout: .seconds(30))
        return Reply(
            status: response.response.status.code, headers: response.response.headerFields, body: response.body)
    }

    func json(_ text: String) -> Data { Data(text.utf8) }
}

/// Wraps a transport and keeps every response body, so tests can compare what the adapter returned with what
/// went over the wire.
final class ResponseRecordingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let bodies = Mutex<[(path: String, body: Data)]>([])

    init(_ base: any HTTPTransport) { self.base = base }

    var responses: [(path: String, body: Data)] { bodies.withLock { $0 } }

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        let response = try await base.send(request, body: body, timeout: timeout)
        bodies.withLock { $0.append((request.path ?? "", response.body)) }
        return response
    }
}

enum SimulatorFixture {
    /// The adapter pointed at a running simulator.
    static func provider(
        _ handle: SimulatorHandle, apiKey: String = AdyenSimulator.Credentials.apiKey,
        hmacKey: String? = AdyenSimulator.Credentials.hmacKeyHex, transport: (any HTTPTransport)? = nil,
        timeout: Duration = .seconds(30),
        retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
    ) throws -> AdyenProvider {
        let http = try ProviderHTTPClient(
            instance: "adyen-sim", kind: .adyen, baseURL: handle.baseURL,
            transport: transport ?? AsyncHTTPClientTransport(), timeout: timeout,
            retry: retry
        )
        return try AdyenProvider(http: http, apiKey: Secret(apiKey), hmacKey: hmacKey.map(Secret.init))
    }
}
