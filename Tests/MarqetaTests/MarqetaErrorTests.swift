import CardGateway
import Foundation
import HTTPTypes
import SharedTestSupport
import Testing

@testable import CardGatewayMarqeta

/// One test per row of the table in MarqetaErrors.swift.
@Suite("Marqeta error table", .timeLimit(.minutes(5)))
struct MarqetaErrorTests {
    struct Row: Sendable, CustomStringConvertible {
        var status: Int
        var errorCode: String
        var expected: CardGatewayError.Code
        var retryable: Bool
        var mayHaveReached: Bool
        var description: String { "\(status) \(errorCode) → \(expected)" }
    }

    static let rows: [Row] = [
        Row(status: 400, errorCode: "400600", expected: .invalidCardState, retryable: false, mayHaveReached: false),
        Row(status: 400, errorCode: "400601", expected: .invalidCardState, retryable: false, mayHaveReached: false),
        Row(status: 400, errorCode: "400001", expected: .invalidRequest, retryable: false, mayHaveReached: false),
        Row(status: 401, errorCode: "401001", expected: .authenticationFailed, retryable: false, mayHaveReached: false),
        Row(status: 403, errorCode: "403000", expected: .permissionDenied, retryable: false, mayHaveReached: false),
        Row(status: 404, errorCode: "404001", expected: .notFound, retryable: false, mayHaveReached: false),
        Row(status: 409, errorCode: "409001", expected: .conflict, retryable: false, mayHaveReached: false),
        Row(status: 412, errorCode: "412000", expected: .invalidRequest, retryable: false, mayHaveReached: false),
        Row(status: 422, errorCode: "400600", expected: .invalidRequest, retryable: false, mayHaveReached: false),
        Row(status: 422, errorCode: "422003", expected: .invalidCardState, retryable: false, mayHaveReached: false),
        Row(status: 422, errorCode: "422004", expected: .invalidCardState, retryable: false, mayHaveReached: false),
        Row(status: 422, errorCode: "422001", expected: .invalidRequest, retryable: false, mayHaveReached: false),
        Row(status: 429, errorCode: "429000", expected: .rateLimited, retryable: true, mayHaveReached: false),
        Row(status: 500, errorCode: "500000", expected: .providerUnavailable, retryable: true, mayHaveReached: true),
        Row(status: 503, errorCode: "503000", expected: .providerUnavailable, retryable: true, mayHaveReached: true),
        Row(status: 418, errorCode: "418000", expected: .invalidRequest, retryable: false, mayHaveReached: false),
        Row(status: 302, errorCode: "302000", expected: .invalidResponse, retryable: false, mayHaveReached: true),
    ]

    @Test(arguments: rows)
    func row(_ row: Row) throws {
        var headers = HTTPFields()
        headers[HTTPField.Name("Retry-After")!] = "4"
        let body = Data(#"{"error_code":"\#(row.errorCode)","error_message":"Simulated refusal for tests"}"#.utf8)
        let error = MarqetaErrors.error(
            for: ProviderResponse(status: row.status, headers: headers, body: body), instance: "mq")
        #expect(error.code == row.expected)
        #expect(error.isRetryable == row.retryable)
        #expect(error.mayHaveReachedProvider == row.mayHaveReached)
        #expect(error.providerCode == row.errorCode)
        #expect(error.httpStatus == row.status)
        #expect(error.providerKind == .marqeta)
        #expect(error.provider == "mq")
        #expect(error.message.contains("Simulated refusal for tests"))
        #expect(error.retryAfter == (row.retryable ? .seconds(4) : nil))
    }

    @Test("a numeric error_code is kept as text; a body that is not Marqeta's still maps by status")
    func codesAndBodies() {
        let numeric = MarqetaErrors.error(
            for: ProviderResponse(
                status: 400, headers: [:], body: Data(#"{"error_code":400600,"error_message":"x"}"#.utf8)),
            instance: "mq")
        #expect(numeric.providerCode == "400600")
        #expect(numeric.code == .invalidCardState)
        let html = MarqetaErrors.error(
            for: ProviderResponse(status: 404, headers: [:], body: Data("<html>nope</html>".utf8)), instance: "mq")
        #expect(html.code == .notFound)
        #expect(html.providerCode == nil)
        #expect(!html.message.contains("<html>"))
    }

    @Test("an error_message echoing the access token is redacted")
    func echoedSecretIsRedacted() {
        let body = Data(#"{"error_code":"401001","error_message":"bad token \#(Seed.accessToken)"}"#.utf8)
        let error = MarqetaErrors.error(
            for: ProviderResponse(status: 401, headers: [:], body: body), instance: "mq", redacting: [Seed.accessToken]
        )
        #expect(!error.description.contains(Seed.accessToken))
        #expect(error.code == .authenticationFailed)
    }

    @Test(
        "a 500 to a transition POST is retryable: it carries Marqeta's idempotency token, so a repeat is answered, not acted on twice"
    )
    func keyedWriteIsRetryable() async throws {
        let (provider, transport) = try MarqetaFixture.scripted([
            .json(200, #"{"token":"card_1","state":"ACTIVE","user_token":"u","last_four":"1234"}"#),
            .json(500, #"{"error_code":"500000","error_message":"boom"}"#),
        ])
        let error = await gatewayError {
            _ = try await provider.changeStatus(
                CardStatusRequest(card: CardRef(id: "card_1"), intent: .lock), context: OperationContext())
        }
        #expect(error?.code == .providerUnavailable)
        #expect(error?.isRetryable == true)
        #expect(error?.mayHaveReachedProvider == true)
        #expect(
            transport.requests.map { "\($0.method) \($0.pathWithoutQuery)" } == [
                "GET /v3/cards/card_1", "POST /v3/cardtransitions",
            ])
        #expect(transport.requests.last?.jsonBody?["token"]?.stringValue?.count == 36)
    }
}
