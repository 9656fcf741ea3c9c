@_spi(AdapterSupport) import CardGateway
import CardGatewayTesting
import Foundation
import HTTPTypes
import SharedTestSupport
import Testing

/// What the request path's fast paths (issue 22) must keep exactly as it was.
@Suite("Request path: fast paths give the same answers", .timeLimit(.minutes(5)))
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
            ("/a/", false),
        ])
    func paths(path: String, expected: Bool) {
        #expect(URLEncoding.hasDotSegment(path) == expected)
        #expect(
            URLEncoding.hasDotSegment(path)
                == path.split(separator: "/", omittingEmptySubsequences: false).contains(
                    where: URLEncoding.isDotSegment))
    }

    @Test(
        "escaping returns unreserved text as it is and escapes the rest as Foundation does",
        arguments: [
            "ic_1MvSieLkdIwHu7ixn6uuO0Xu", "11111111-0000-4000-8000-000000000001", "a.b~c", "", "a/b c", "a&b=c", "é",
            "100%", "x+y", "ACTIVE,LOCKED",
        ])
    func escaping(text: String) {
        var unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        unreserved.insert(charactersIn: "-._~")
        #expect(URLEncoding.escape(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved))
    }

    @Test(
        "escaping writes what Foundation writes for 5 000 generated texts over every ASCII character and multi-byte ones"
    )
    func escapingGenerated() {
        var unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        unreserved.insert(charactersIn: "-._~")
        let pieces =
            (0..<128).map { String(UnicodeScalar(UInt8($0))) } + [
                "é", "€", "😀", "e\u{301}", "\u{FFFD}", "\u{10FFFF}", "ß", "\u{7FF}", "\u{800}",
            ]
        var random = SeededGenerator(state: 0xE5CA9E)
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            #expect(
                URLEncoding.escape(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved),
                "\(Array(text.utf8))")
        }
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
