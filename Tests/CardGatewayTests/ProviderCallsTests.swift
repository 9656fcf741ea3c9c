@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing

/// The adapters' shared plumbing (`ProviderCalls`) on a scripted transport: what it sends, what it throws.
@Suite("Adapter plumbing: send, headers, decode, invalid answers", .timeLimit(.minutes(5)))
struct ProviderCallsTests {
    struct Wire: Codable, Equatable {
        var id: String
        var status: String
    }

    static let kind = ProviderKind("example")
    static let requestIDHeader = HTTPField.Name("Request-Id")!

    /// A client on `transport` for instance "inst" and the room-like plumbing over it: the table names the
    /// operation, so a test sees which request it answered.
    static func calls(
        _ transport: ScriptedTransport, acceptsJSON: Bool = false, table: Bool = true
    ) throws -> ProviderCalls {
        let http = try ProviderHTTPClient.testing(
            instance: "inst", kind: kind, baseURL: URL(string: "https://api.example.test")!, transport: transport)
        let roomTable: ProviderCalls.ErrorTable = { response, request in
            CardGatewayError(
                .declined, "table: \(request.operation) \(response.status)", provider: "inst", providerKind: kind,
                httpStatus: response.status)
        }
        return ProviderCalls(
            http, provider: "Example", kind: kind, acceptsJSON: acceptsJSON, requestID: { $0.header("Request-Id") },
            errors: table ? roomTable : nil)
    }

    static let get = ProviderRequest(.get, "/v1/things/t_1", operation: "get thing")

    @Test("a 2xx answer is returned as it came; the request goes out as built")
    func sendsAndReturns() async throws {
        let transport = ScriptedTransport([.json(200, #"{"id":"t_1","status":"ok"}"#)])
        let calls = try Self.calls(transport)
        let response = try await calls.send(Self.get, context: OperationContext())
        #expect(response.status == 200)
        #expect(try calls.decode(Wire.self, from: response, what: "thing") == Wire(id: "t_1", status: "ok"))
        #expect(transport.requests.map(\.method) == ["GET"])
        #expect(transport.requests.map(\.path) == ["/v1/things/t_1"])
    }

    @Test("a non-2xx answer is thrown as the room's table makes it, once (a 4xx is not retried)")
    func tableMakesTheError() async throws {
        let transport = ScriptedTransport([.json(402, "{}")])
        let calls = try Self.calls(transport)
        let error = try await #require(throws: CardGatewayError.self) {
            try await calls.send(Self.get, context: OperationContext())
        }
        #expect(error.code == .declined)
        #expect(error.message == "table: get thing 402")
        #expect(transport.requestCount == 1)
        #expect(
            calls.error(for: ProviderResponse(status: 409, headers: [:], body: Data()), answering: Self.get).message
                == "table: get thing 409")
    }

    @Test("a table named with the call replaces the room's")
    func perCallTable() async throws {
        let transport = ScriptedTransport([.json(403, "{}")])
        let calls = try Self.calls(transport)
        let error = try await #require(throws: CardGatewayError.self) {
            try await calls.send(Self.get, context: OperationContext()) { response, _ in
                CardGatewayError(.permissionDenied, "per call \(response.status)")
            }
        }
        #expect(error.code == .permissionDenied)
        #expect(error.message == "per call 403")
    }

    @Test(
        "without a table, the status table's rule, with the provider's request id; a write sent once is not retryable")
    func statusTableWithoutARoomTable() async throws {
        let transport = ScriptedTransport([
            .json(404, "{}", headers: ["Request-Id": "req_1"]), .json(503, "{}", headers: ["Request-Id": "req_2"]),
        ])
        let calls = try Self.calls(transport, table: false)
        let notFound = try await #require(throws: CardGatewayError.self) {
            try await calls.send(Self.get, context: OperationContext())
        }
        #expect(notFound.code == .notFound)
        #expect(notFound.message == "Example answered HTTP 404")
        #expect(notFound.requestID == "req_1")
        #expect(notFound.provider == "inst")
        #expect(notFound.providerKind == Self.kind)
        #expect(!notFound.isRetryable && !notFound.mayHaveReachedProvider)

        let write = ProviderRequest(
            .post, "/v1/things", body: Data("{}".utf8), repeatability: .never, operation: "create")
        let unavailable = try await #require(throws: CardGatewayError.self) {
            try await calls.send(write, context: OperationContext())
        }
        #expect(unavailable.code == .providerUnavailable)
        #expect(unavailable.mayHaveReachedProvider)
        #expect(!unavailable.isRetryable)
        #expect(unavailable.message.hasPrefix("Example answered HTTP 503; the request may have been acted on"))
        #expect(transport.requestCount == 2)
    }

    @Test("headers: Content-Type for a JSON body, Accept only when the provider's requests all say it")
    func headers() throws {
        let transport = ScriptedTransport([])
        let plain = try Self.calls(transport)
        #expect(plain.headers() == HTTPFields())
        #expect(plain.headers(json: true)[.contentType] == "application/json")
        #expect(plain.headers(json: true)[.accept] == nil)
        let accepting = try Self.calls(transport, acceptsJSON: true)
        #expect(accepting.headers()[.accept] == "application/json")
        #expect(accepting.headers()[.contentType] == nil)
        #expect(accepting.headers(json: true).count == 2)
    }

    @Test("the body encoder sorts keys and leaves slashes alone")
    func encoder() throws {
        struct Body: Encodable {
            var zeta = "a/b"
            var alpha = 1
        }
        let calls = try Self.calls(ScriptedTransport([]))
        #expect(String(decoding: try calls.encode(Body()), as: UTF8.self) == #"{"alpha":1,"zeta":"a/b"}"#)
    }

    @Test("an answer that cannot be decoded is invalidResponse naming the field, never the body")
    func decodingFailure() throws {
        let calls = try Self.calls(ScriptedTransport([]))
        let response = ProviderResponse(
            status: 200, headers: [Self.requestIDHeader: "req_9"], body: Data(#"{"id":"4242424242424242"}"#.utf8))
        let error = try #require(throws: CardGatewayError.self) {
            try calls.decode(Wire.self, from: response, what: "thing")
        }
        #expect(error.code == .invalidResponse)
        #expect(error.message == "Example's thing answer could not be read: status is missing")
        #expect(error.requestID == "req_9")
        #expect(error.httpStatus == 200)
        #expect(error.mayHaveReachedProvider)
        #expect(!error.description.contains("4242424242424242"))
        let inferred: Wire? = try? calls.decode(
            from: ProviderResponse(status: 200, headers: [:], body: Data(#"{"id":"a","status":"b"}"#.utf8)),
            what: "thing")
        #expect(inferred == Wire(id: "a", status: "b"))
    }

    @Test("invalidResponse carries the status and the provider's request id")
    func invalidResponse() throws {
        let calls = try Self.calls(ScriptedTransport([]))
        let error = calls.invalidResponse(
            "Example's card has no id",
            ProviderResponse(status: 201, headers: [Self.requestIDHeader: "req_3"], body: Data()))
        #expect(error.code == .invalidResponse)
        #expect(error.message == "Example's card has no id")
        #expect(error.httpStatus == 201)
        #expect(error.requestID == "req_3")
        #expect(error.provider == "inst")
        #expect(error.providerKind == Self.kind)
        #expect(error.mayHaveReachedProvider)
        #expect(!error.isRetryable)
    }
}
