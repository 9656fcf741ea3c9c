@_spi(AdapterSupport) import CardGateway
import CardGatewayTesting
import Foundation
import SharedTestSupport
import Testing

@Suite("Shared adapter helpers: status table, id checks, decoding", .timeLimit(.minutes(5)))
struct AdapterSupportTests {
    @Test(
        "the default status table, row by row",
        arguments: [
            (400, CardGatewayError.Code.invalidRequest, false, false), (401, .authenticationFailed, false, false),
            (403, .permissionDenied, false, false), (404, .notFound, false, false), (408, .timeout, true, true),
            (409, .conflict, false, false), (418, .invalidRequest, false, false), (422, .invalidRequest, false, false),
            (429, .rateLimited, true, false), (500, .providerUnavailable, true, true),
            (503, .providerUnavailable, true, true),
            (599, .providerUnavailable, true, true), (302, .invalidResponse, false, true),
            (100, .invalidResponse, false, true),
        ])
    func statusTable(status: Int, code: CardGatewayError.Code, retryable: Bool, acted: Bool) {
        #expect(
            HTTPStatusTable.rule(for: status)
                == HTTPStatusRule(code, retryable: retryable, mayHaveReachedProvider: acted))
    }

    @Test("an adapter's override wins for its status only")
    func overrides() {
        let overrides = [402: HTTPStatusRule(.declined, retryable: false, mayHaveReachedProvider: false)]
        #expect(HTTPStatusTable.rule(for: 402, overrides: overrides).code == .declined)
        #expect(HTTPStatusTable.rule(for: 403, overrides: overrides).code == .permissionDenied)
    }

    @Test(
        "ids: provider-shaped ids pass",
        arguments: [
            "ic_1MvSieLkdIwHu7ixn6uuO0Xu", "PI3227C223222B5BPCMFXD2XG", "2-9-4617572",
            "5f8e2c5a-8b7e-4b8e-9c1a-2d3e4f5a6b7c", "a.b", "a..b", "x:y",
        ])
    func goodIDs(id: String) {
        #expect(ProviderIDs.isValid(id))
    }

    @Test(
        "ids: a character is accepted exactly when it is printable ASCII other than / \\ ? # %, checked over every scalar up to U+2FFF and a few beyond"
    )
    func idCharacters() {
        let scalars = (0..<0x3000).compactMap(Unicode.Scalar.init) + ["\u{FEFF}", "\u{1F600}", "\u{10FFFF}"]
        for scalar in scalars {
            let expected = (0x21..<0x7f).contains(scalar.value) && !"/\\?#%".unicodeScalars.contains(scalar)
            #expect(ProviderIDs.isValid("a\(Character(scalar))b") == expected, "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test(
        "ids: empty, too long, spaces, control characters, delimiters and dot segments are refused, naming no id",
        arguments: [
            "", ".", "..", "%2e%2e", ".%2E", "a/b", "a\\b", "a?b", "a#b", "a%2Fb", "a b", "a\r\nb", "a\u{0}b", "a\tb",
            "é", "a\u{7f}", String(repeating: "x", count: 256),
        ])
    func badIDs(id: String) {
        var problems = ValidationProblems()
        ProviderIDs.check(id, field: "card.id", what: "a test id", into: &problems)
        #expect(problems.errors.count == 1)
        #expect(problems.errors.first?.field == "card.id")
        if id.count > 2 { #expect(problems.errors.first?.message.contains(id) == false) }
    }

    @Test("ids: the provider's own maximum applies")
    func maxLength() {
        #expect(ProviderIDs.isValid(String(repeating: "a", count: 42), maxLength: 42))
        #expect(!ProviderIDs.isValid(String(repeating: "a", count: 43), maxLength: 42))
    }

    struct Sample: Decodable { var id: String; var status: String }

    @Test("a body that does not decode is invalidResponse with the status, request id and field path, never the body")
    func decode() throws {
        let response = ProviderResponse(status: 200, headers: [:], body: Data(#"{"id": "4111111111111111"}"#.utf8))
        let error = #expect(throws: CardGatewayError.self) {
            _ = try response.decode(
                Sample.self, provider: "Alpha", what: "card", instance: "eu", kind: ProviderKind("alpha"),
                requestID: "req-9")
        }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message == "Alpha's card answer could not be read: status is missing")
        #expect(error?.requestID == "req-9")
        #expect(error?.httpStatus == 200)
        #expect(error?.provider == "eu")
        #expect(error?.mayHaveReachedProvider == true)
        #expect(!String(describing: error).contains("4111"))

        let notJSON = ProviderResponse(status: 200, headers: [:], body: Data("<html>".utf8))
        let second = #expect(throws: CardGatewayError.self) {
            _ = try notJSON.decode(
                Sample.self, provider: "Alpha", what: "card", instance: "eu", kind: ProviderKind("alpha"),
                requestID: nil)
        }
        #expect(second?.message.hasSuffix("it is not JSON") == true)
        let good = ProviderResponse(status: 200, headers: [:], body: Data(#"{"id": "c1", "status": "ACTIVE"}"#.utf8))
        #expect(
            try good.decode(
                Sample.self, provider: "Alpha", what: "card", instance: "eu", kind: ProviderKind("alpha"),
                requestID: nil
            ).status == "ACTIVE")

        // A member of the wrong type is named by its path, with the shared decoder and with an adapter's own.
        let wrongType = ProviderResponse(
            status: 200, headers: [:], body: Data(#"{"id": "c1", "status": 4111111111111111}"#.utf8))
        let third = #expect(throws: CardGatewayError.self) {
            _ = try wrongType.decode(
                Sample.self, provider: "Alpha", what: "card", instance: "eu", kind: ProviderKind("alpha"),
                requestID: nil)
        }
        #expect(third?.message == "Alpha's card answer could not be read: status has the wrong type")
        let own = #expect(throws: CardGatewayError.self) {
            _ = try wrongType.decode(
                Sample.self, using: JSONDecoder(), provider: "Alpha", what: "card", instance: "eu",
                kind: ProviderKind("alpha"), requestID: nil)
        }
        #expect(own?.message == third?.message)
    }

    @Test("HTTP Basic: the header value is RFC 7617's example; the authentication's description does not show it")
    func basic() {
        // RFC 7617 section 2's example.
        #expect(
            HeaderAuthentication.basicValue(username: "Aladdin", password: "open sesame")
                == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        let description = HeaderAuthentication.basic(username: Secret("Aladdin"), password: Secret("open sesame"))
            .description
        #expect(!description.contains("QWxhZGRp"))
    }

    @Test("Duration in seconds, milliseconds, microseconds and nanoseconds, truncated toward zero")
    func durations() {
        let duration = Duration.seconds(2) + .nanoseconds(345_678_901)
        #expect(duration.timeInterval == 2.345678901)
        #expect(duration.milliseconds == 2_345)
        #expect(duration.microseconds == 2_345_678)
        #expect(duration.nanoseconds == 2_345_678_901)
        #expect(Duration.milliseconds(-1_500).milliseconds == -1_500)
        #expect(Duration.zero.timeInterval == 0)
    }
}
