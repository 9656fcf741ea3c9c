@_spi(AdapterSupport) import CardGateway
import CardGatewayTesting
import Foundation
import HTTPTypes
import SharedTestSupport
import Testing

/// Request paths: dot segments refused, ids and query items escaped as RFC 3986 asks.
@Suite("Request path: dot segments and escaping", .timeLimit(.minutes(5)))
struct RequestPathTests {
    @Test(
        "every spelling of a dot segment is one; nothing else is",
        arguments: [
            (".", true), ("..", true), ("%2e", true), ("%2E", true), ("%2e%2E", true), (".%2e", true), ("%2E.", true),
            ("", false), ("a", false), ("...", false), (".a", false), ("a.", false), ("%2f", false),
            ("%2e%2e%2e", false), ("ic_123", false),
        ])
    func dotSegments(segment: String, expected: Bool) {
        #expect(URLEncoding.isDotSegment(segment) == expected)
        #expect(URLEncoding.isDotSegment(Substring(segment)) == expected)
    }

    @Test(
        "a path has a dot segment when any of its segments is one",
        arguments: [
            ("/cards/..", true), ("/cards/./x", true), ("..", true), ("/a/%2E%2e/b", true), ("./a", true),
            ("/cards/a..b", false), ("/v1/issuing/cards/ic_1", false), ("", false), ("/", false), ("//", false),
            ("/a/", false), ("/v1/issuing/cards/ic_1SimActiveEligible000000/..", true), ("/abcdefgh/%2E", true),
            ("/x/.%2E", true), ("/cards/%2e%2e%2e/x", false), ("/cards/ic_1SimActiveEligible000000", false),
            ("a/b/c", false), ("/a/.", true),
        ])
    func paths(path: String, expected: Bool) {
        #expect(URLEncoding.hasDotSegment(path) == expected)
    }

    @Test(
        "escaping keeps RFC 3986 unreserved characters and writes every other UTF-8 byte as upper-case %XX",
        arguments: [
            ("ic_1MvSieLkdIwHu7ixn6uuO0Xu", "ic_1MvSieLkdIwHu7ixn6uuO0Xu"),
            ("11111111-0000-4000-8000-000000000001", "11111111-0000-4000-8000-000000000001"), ("a.b~c", "a.b~c"),
            ("", ""), ("a/b c", "a%2Fb%20c"), ("a&b=c", "a%26b%3Dc"), ("é", "%C3%A9"), ("100%", "100%25"),
            ("x+y", "x%2By"), ("ACTIVE,LOCKED", "ACTIVE%2CLOCKED"), ("😀", "%F0%9F%98%80"), ("a?b#c", "a%3Fb%23c"),
        ])
    func escaping(text: String, expected: String) {
        #expect(URLEncoding.escape(text) == expected)
        #expect(URLEncoding.pathSegment(text) == expected)
    }

    @Test("every ASCII character, alone and beside unreserved ones, is escaped exactly as Foundation escapes it")
    func escapingMatchesFoundation() {
        var unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        unreserved.insert(charactersIn: "-._~")
        for byte in UInt8(0)...UInt8(127) {
            for text in [String(UnicodeScalar(byte)), "id_1\(UnicodeScalar(byte))x"] {
                #expect(
                    URLEncoding.escape(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved),
                    "byte \(byte)")
            }
        }
    }

    @Test("a query and a form body escape names and values and keep their order")
    func queryAndForm() {
        let items = [(name: "b name", value: "x&y"), (name: "a", value: "é"), (name: "empty", value: "")]
        #expect(URLEncoding.query(items) == "b%20name=x%26y&a=%C3%A9&empty=")
        #expect(URLEncoding.formBody(items) == Data("b%20name=x%26y&a=%C3%A9&empty=".utf8))
        #expect(URLEncoding.query([]) == "")
    }

    @Test("a client's settings changed after it was made apply to its next request, and not to copies made before")
    func settingsChangedLater() async throws {
        let transport = ScriptedTransport([.json(200, "{}"), .json(200, "{}")])
        let before = try ProviderHTTPClient(
            instance: "alpha", kind: ProviderKind("alpha"), baseURL: URL(string: "https://api.alpha.example")!,
            transport: transport)
        var after = before
        after.requestMiddlewares = [try StaticHeadersMiddleware([(name: "X-Later", value: "1")])]
        after = after.authenticated(by: HeaderAuthentication.apiKey(HTTPField.Name("X-Api-Key")!, Secret("k")))
        _ = try await after.send(ProviderRequest(.get, "/cards/1", operation: "read"), context: OperationContext())
        _ = try await before.send(ProviderRequest(.get, "/cards/1", operation: "read"), context: OperationContext())
        let requests = transport.requests
        #expect(requests.count == 2)
        #expect(requests.first?.header("X-Later") == "1")
        #expect(requests.first?.header("X-Api-Key") == "k")
        #expect(requests.last?.header("X-Later") == nil)
        #expect(requests.last?.header("X-Api-Key") == nil)
    }

    @Test(
        "the base URL's path and port are kept for every request",
        arguments: [
            ("https://api.alpha.example/v2/", "/v2/cards/1", "api.alpha.example"),
            ("http://127.0.0.1:8080", "/cards/1", "127.0.0.1:8080"),
            ("https://[::1]:8443/base", "/base/cards/1", "[::1]:8443"),
        ])
    func baseURLs(base: String, path: String, authority: String) async throws {
        let transport = ScriptedTransport([.json(200, "{}")])
        let client = try ProviderHTTPClient(
            instance: "alpha", kind: ProviderKind("alpha"), baseURL: URL(string: base)!, transport: transport)
        _ = try await client.send(ProviderRequest(.get, "cards/1", operation: "read"), context: OperationContext())
        let request = try #require(transport.requests.first)
        #expect(request.path == path)
        #expect(request.request.authority == authority)
    }
}
