// AsyncHTTPClient, NIOCore and NIOHTTP1 are built for CardGatewayAsyncHTTPClient, which this target depends on; they
// are imported here for the types the transport's conversions take and return.
import AsyncHTTPClient
@_spi(AdapterSupport) @testable import CardGateway
@testable import CardGatewayAsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Testing

/// The conversions between the chain's request and response and the transport's, and between those and
/// AsyncHTTPClient's, checked without a socket: what each puts on the wire and what it reads back.
@Suite("Transport conversions, without a socket", .timeLimit(.minutes(1)))
struct TransportConversionTests {
    static let kind = ProviderKind("alpha")

    static func httpRequest(_ request: ProviderRequest, baseURL: String) throws -> HTTPRequest {
        try TransportConversion.httpRequest(
            request, endpoint: ProviderHTTPClient.Endpoint(URL(string: baseURL)!), instance: "alpha", kind: kind)
    }

    static func header(_ fields: HTTPFields, _ name: String) -> String? { fields[HTTPField.Name(name)!] }

    // MARK: ProviderRequest -> HTTPRequest

    @Test(
        "the method, the path below the base URL's path and the escaped query",
        arguments: [
            ("https://api.alpha.example", "/v1/cards/ic_1", "/v1/cards/ic_1", "api.alpha.example"),
            ("https://api.alpha.example/base/", "/cards/ic_1", "/base/cards/ic_1", "api.alpha.example"),
            ("https://api.alpha.example/base", "cards/ic_1", "/base/cards/ic_1", "api.alpha.example"),
            ("http://127.0.0.1:8080", "/cards", "/cards", "127.0.0.1:8080"),
            ("https://[::1]:8443/v2", "/cards", "/v2/cards", "[::1]:8443"),
        ])
    func pathAndAuthority(base: String, path: String, expectedPath: String, authority: String) throws {
        let request = ProviderRequest(
            .post, path, query: [(name: "state", value: "OPEN,PAUSED"), (name: "q", value: "a b&c=é")],
            operation: "create")
        let converted = try Self.httpRequest(request, baseURL: base)
        #expect(converted.method == .post)
        #expect(converted.scheme == URL(string: base)!.scheme)
        #expect(converted.authority == authority)
        #expect(converted.path == expectedPath + "?state=OPEN%2CPAUSED&q=a%20b%26c%3D%C3%A9")
    }

    @Test("no query, no question mark")
    func noQuery() throws {
        let converted = try Self.httpRequest(
            ProviderRequest(.get, "/v1/cards/ic_1", operation: "read"), baseURL: "https://api.alpha.example")
        #expect(converted.method == .get)
        #expect(converted.path == "/v1/cards/ic_1")
    }

    @Test("the adapter's headers in order, values as they are (credentials included), and the two defaults added")
    func headers() throws {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer sk_test_4eC39HqLyjWDarjtT1zdp7dc"
        fields[HTTPField.Name("Idempotency-Key")!] = "k-1"
        fields.append(HTTPField(name: HTTPField.Name("X-Multi")!, value: "one"))
        fields.append(HTTPField(name: HTTPField.Name("X-Multi")!, value: "two"))
        let converted = try Self.httpRequest(
            ProviderRequest(.post, "/v1/cards", headers: fields, body: Data("{}".utf8), operation: "create"),
            baseURL: "https://api.alpha.example")
        #expect(
            converted.headerFields.map { "\($0.name.rawName): \($0.value)" } == [
                "Authorization: Bearer sk_test_4eC39HqLyjWDarjtT1zdp7dc", "Idempotency-Key: k-1", "X-Multi: one",
                "X-Multi: two", "Accept: application/json", "User-Agent: CardGateway/1.0",
            ])
    }

    @Test("an Accept or User-Agent the adapter set is kept, not doubled")
    func defaultsNotOverridden() throws {
        let converted = try Self.httpRequest(
            ProviderRequest(
                .get, "/v1/cards", headers: [.accept: "application/vnd.alpha+json", .userAgent: "Adapter/2"],
                operation: "list"),
            baseURL: "https://api.alpha.example")
        #expect(converted.headerFields[values: .accept] == ["application/vnd.alpha+json"])
        #expect(converted.headerFields[values: .userAgent] == ["Adapter/2"])
    }

    @Test("a dot segment is refused, and the error names neither the path nor the query")
    func dotSegmentRefused() throws {
        let request = ProviderRequest(
            .get, "/v1/cards/../accounts/acct_secret", query: [(name: "pan", value: "4111111111111111")],
            operation: "read")
        do {
            _ = try Self.httpRequest(request, baseURL: "https://api.alpha.example")
            Issue.record("a path with a dot segment was converted")
        } catch let error as CardGatewayError {
            #expect(error.code == .invalidRequest)
            #expect(error.provider == "alpha")
            let text = "\(error) \(error.message)"
            #expect(!text.contains("acct_secret"))
            #expect(!text.contains("4111111111111111"))
        }
    }

    @Test("a base URL without a host is a configuration error on every request")
    func noEndpoint() throws {
        #expect(ProviderHTTPClient.Endpoint(URL(string: "/relative/path")!) == nil)
        do {
            _ = try TransportConversion.httpRequest(
                ProviderRequest(.get, "/v1/cards", operation: "read"), endpoint: nil, instance: "alpha",
                kind: Self.kind)
            Issue.record("a request without an endpoint was converted")
        } catch let error as CardGatewayError {
            #expect(error.code == .invalidConfiguration)
        }
    }

    // MARK: TransportResponse -> ProviderResponse

    @Test("the transport's status, headers and body become the provider response as they are")
    func providerResponse() {
        let body = Data(#"{"id":"ic_1"}"#.utf8)
        let response = TransportConversion.providerResponse(
            TransportResponse(
                response: HTTPResponse(
                    status: .init(code: 429),
                    headerFields: [.retryAfter: "3", .contentType: "application/json", .contentLength: "13"]),
                body: body))
        #expect(response.status == 429)
        #expect(response.body == body)
        #expect(response.attempts == 1)
        #expect(response.idempotencyKey == nil)
        #expect(response.header("Content-Length") == "13")
        #expect(response.retryAfter == .seconds(3))
        #expect(!response.isSuccess)
    }

    // MARK: HTTPRequest -> AsyncHTTPClient's request

    @Test("AsyncHTTPClient's request: URL, method, every header in order and the body's bytes")
    func asyncHTTPClientRequest() async throws {
        let body = Data(#"{"amount":100}"#.utf8)
        let request = try Self.httpRequest(
            ProviderRequest(
                .patch, "/v1/cards/ic_1", query: [(name: "expand", value: "a b")],
                headers: [.authorization: "Basic dXNlcjpwYXNz", .contentType: "application/json"], body: body,
                operation: "update"),
            baseURL: "https://api.alpha.example:8443/base")
        let outgoing = try AsyncHTTPClientTransport.convertRequest(request, body: body)
        #expect(outgoing.url == "https://api.alpha.example:8443/base/v1/cards/ic_1?expand=a%20b")
        #expect(outgoing.method == .PATCH)
        #expect(
            outgoing.headers.map { "\($0.name): \($0.value)" } == [
                "Authorization: Basic dXNlcjpwYXNz", "Content-Type: application/json", "Accept: application/json",
                "User-Agent: CardGateway/1.0",
            ])
        var sent = Data()
        for try await part in try #require(outgoing.body) { sent.append(contentsOf: part.readableBytesView) }
        #expect(sent == body)
    }

    @Test("no body, no AsyncHTTPClient body; every method goes as it is", arguments: ["GET", "DELETE", "HEAD", "PUT"])
    func asyncHTTPClientMethods(method: String) throws {
        let request = HTTPRequest(
            method: HTTPRequest.Method(method)!, scheme: "https", authority: "api.alpha.example", path: "/v1/cards")
        let outgoing = try AsyncHTTPClientTransport.convertRequest(request, body: nil)
        #expect(outgoing.method.rawValue == method)
        #expect(outgoing.body == nil)
        #expect(outgoing.headers.isEmpty)
    }

    @Test("a request without an authority is refused as invalid, which never reached anyone")
    func asyncHTTPClientInvalidRequest() {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.alpha.example", path: "/v1/cards")
        request.authority = nil
        do {
            _ = try AsyncHTTPClientTransport.convertRequest(request, body: nil)
            Issue.record("a request without an authority was converted")
        } catch let error as TransportError {
            #expect(error.kind == .invalidRequest)
            #expect(!error.mayHaveReachedProvider)
        } catch {
            Issue.record("unexpected error \(type(of: error))")
        }
    }

    // MARK: AsyncHTTPClient's response -> TransportResponse

    @Test("AsyncHTTPClient's response: status, headers in order (repeated ones kept), Content-Length and body")
    func asyncHTTPClientResponse() {
        let headers = HTTPHeaders([
            ("Content-Type", "application/json"), ("Content-Length", "11"), ("Set-Cookie", "a=1"),
            ("Set-Cookie", "b=2"), ("Request-Id", "req_1"),
        ])
        let converted = AsyncHTTPClientTransport.convertResponse(
            status: .created, headers: headers, body: ByteBuffer(string: #"{"ok":true}"#))
        #expect(converted.response.status.code == 201)
        #expect(converted.body == Data(#"{"ok":true}"#.utf8))
        #expect(
            converted.response.headerFields.map { "\($0.name.rawName): \($0.value)" } == [
                "Content-Type: application/json", "Content-Length: 11", "Set-Cookie: a=1", "Set-Cookie: b=2",
                "Request-Id: req_1",
            ])
        #expect(Self.header(converted.response.headerFields, "Content-Length") == "11")
    }

    @Test("a header name HTTP does not allow is left out; the others are kept")
    func asyncHTTPClientResponseInvalidName() {
        let converted = AsyncHTTPClientTransport.convertResponse(
            status: .ok, headers: HTTPHeaders([("Bad Name", "x"), ("X-Good", "y")]), body: ByteBuffer())
        #expect(converted.response.headerFields.map(\.name.rawName) == ["X-Good"])
        #expect(converted.body.isEmpty)
    }

    @Test(
        "an attempt's timeout goes to AsyncHTTPClient in whole nanoseconds, at least one",
        arguments: [
            (Duration.seconds(30), Int64(30_000_000_000)), (.milliseconds(1500), 1_500_000_000), (.zero, 1),
            (.nanoseconds(1), 1),
        ])
    func timeout(duration: Duration, nanoseconds: Int64) {
        #expect(AsyncHTTPClientTransport.timeAmount(duration).nanoseconds == nanoseconds)
    }
}
