import CardGateway
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayStripe
import SharedTestSupport

@Suite("Stripe error table", .timeLimit(.minutes(5)))
struct StripeErrorTests {
    struct Row: Sendable, CustomStringConvertible {
        var status: Int
        var type: String?
        var code: String?
        var declineCode: String? = nil
        var param: String? = nil
        var headers: [String: String] = [:]
        var expected: CardGatewayError.Code
        var providerCode: String?
        var retryable: Bool
        var reached: Bool
        var description: String { "\(status) \(type ?? "-") \(code ?? "-")" }
    }

    static let rows: [Row] = [
        Row(
            status: 400, type: "invalid_request_error", code: "parameter_missing", param: "issuing_card",
            expected: .invalidRequest, providerCode: "parameter_missing", retryable: false, reached: false),
        Row(
            status: 400, type: "invalid_request_error", code: nil, expected: .invalidRequest,
            providerCode: "invalid_request_error", retryable: false, reached: false),
        Row(
            status: 400, type: "idempotency_error", code: nil, expected: .conflict, providerCode: "idempotency_error",
            retryable: false, reached: false),
        Row(
            status: 400, type: "invalid_request_error", code: "rate_limit", expected: .rateLimited,
            providerCode: "rate_limit", retryable: true, reached: false),
        Row(
            status: 400, type: "invalid_request_error", code: "status_transition_invalid", expected: .invalidCardState,
            providerCode: "status_transition_invalid", retryable: false, reached: false),
        Row(
            status: 400, type: "invalid_request_error", code: "card_canceled", expected: .invalidCardState,
            providerCode: "card_canceled", retryable: false, reached: false),
        Row(
            status: 400, type: "invalid_request_error", code: "card_inactive", expected: .invalidCardState,
            providerCode: "card_inactive", retryable: false, reached: false),
        Row(
            status: 400, type: "invalid_request_error", code: "resource_missing", param: "issuing_card",
            expected: .notFound, providerCode: "resource_missing", retryable: false, reached: false),
        Row(
            status: 401, type: "invalid_request_error", code: nil, expected: .authenticationFailed,
            providerCode: "invalid_request_error", retryable: false, reached: false),
        Row(
            status: 401, type: "invalid_request_error", code: "api_key_expired", expected: .authenticationFailed,
            providerCode: "api_key_expired", retryable: false, reached: false),
        Row(
            status: 401, type: "invalid_request_error", code: "platform_api_key_expired",
            expected: .authenticationFailed, providerCode: "platform_api_key_expired", retryable: false, reached: false),
        Row(
            status: 403, type: "invalid_request_error", code: "secret_key_required", expected: .authenticationFailed,
            providerCode: "secret_key_required", retryable: false, reached: false),
        Row(
            status: 402, type: "card_error", code: "card_declined", declineCode: "insufficient_funds",
            expected: .declined, providerCode: "insufficient_funds", retryable: false, reached: false),
        Row(
            status: 402, type: "card_error", code: "card_declined", expected: .declined, providerCode: "card_declined",
            retryable: false, reached: false),
        Row(
            status: 403, type: "invalid_request_error", code: nil, expected: .permissionDenied,
            providerCode: "invalid_request_error", retryable: false, reached: false),
        Row(
            status: 404, type: "invalid_request_error", code: "resource_missing", expected: .notFound,
            providerCode: "resource_missing", retryable: false, reached: false),
        Row(
            status: 404, type: "invalid_request_error", code: nil, expected: .notFound,
            providerCode: "invalid_request_error", retryable: false, reached: false),
        Row(
            status: 409, type: "invalid_request_error", code: "idempotency_key_in_use", expected: .conflict,
            providerCode: "idempotency_key_in_use", retryable: true, reached: true),
        Row(
            status: 409, type: "invalid_request_error", code: nil, expected: .conflict,
            providerCode: "invalid_request_error", retryable: true, reached: true),
        Row(
            status: 429, type: "invalid_request_error", code: "rate_limit", headers: ["Retry-After": "7"],
            expected: .rateLimited, providerCode: "rate_limit", retryable: true, reached: false),
        Row(
            status: 429, type: "invalid_request_error", code: "lock_timeout", expected: .conflict,
            providerCode: "lock_timeout", retryable: true, reached: false),
        Row(
            status: 500, type: "api_error", code: nil, expected: .providerUnavailable, providerCode: "api_error",
            retryable: true, reached: true),
        Row(
            status: 502, type: nil, code: nil, expected: .providerUnavailable, providerCode: nil, retryable: true,
            reached: true),
        Row(
            status: 503, type: "api_error", code: nil, headers: ["Stripe-Should-Retry": "false"],
            expected: .providerUnavailable, providerCode: "api_error", retryable: false, reached: true),
        Row(
            status: 400, type: "invalid_request_error", code: "lock_timeout", headers: ["Stripe-Should-Retry": "true"],
            expected: .conflict, providerCode: "lock_timeout", retryable: true, reached: false),
        Row(status: 408, type: nil, code: nil, expected: .timeout, providerCode: nil, retryable: true, reached: true),
        Row(
            status: 418, type: "invalid_request_error", code: "teapot", expected: .invalidRequest,
            providerCode: "teapot", retryable: false, reached: false),
        Row(
            status: 302, type: nil, code: nil, expected: .invalidResponse, providerCode: nil, retryable: false,
            reached: true),
    ]

    @Test(arguments: rows)
    func row(_ row: Row) async throws {
        var fields = [String]()
        if let type = row.type { fields.append(#""type":"\#(type)""#) }
        if let code = row.code { fields.append(#""code":"\#(code)""#) }
        if let param = row.param { fields.append(#""param":"\#(param)""#) }
        if let decline = row.declineCode { fields.append(#""decline_code":"\#(decline)""#) }
        fields.append(#""message":"Stripe says no to sk_test_4eC39HqLyjWDarjtT1zdp7dc.""#)
        let body =
            row.type == nil && row.code == nil
            ? "<html>bad gateway</html>" : #"{"error":{\#(fields.joined(separator: ","))}}"#
        let transport = ScriptedTransport([
            .response(
                status: row.status, headers: row.headers.merging(["Request-Id": "req_Row"]) { a, _ in a },
                body: Data(body.utf8))
        ])
        let provider = try Fixture.provider(transport, retry: RetryPolicy.none)
        let error = await gatewayError { _ = try await provider.card(Fixture.cardRef, context: OperationContext()) }
        let thrown = try #require(error)
        #expect(thrown.code == row.expected)
        #expect(thrown.providerCode == row.providerCode)
        #expect(thrown.httpStatus == row.status)
        #expect(thrown.requestID == "req_Row")
        #expect(thrown.isRetryable == row.retryable)
        #expect(thrown.mayHaveReachedProvider == row.reached)
        #expect(thrown.provider == "test")
        #expect(thrown.providerKind == .stripe)
        #expect(!thrown.description.contains("sk_test_4eC39HqLyjWDarjtT1zdp7dc"))
        if let param = row.param {
            #expect(thrown.fieldErrors.map(\.field) == [param])
        } else {
            #expect(thrown.fieldErrors.isEmpty)
        }
        if row.headers["Retry-After"] != nil {
            #expect(thrown.retryAfter == .seconds(7))
        }
    }

    @Test func requestIDFallsBackToTheLogURL() {
        let response = ProviderResponse(
            status: 400, headers: [:], body: Data(Fixture.error(type: "invalid_request_error").utf8))
        let error = StripeErrors.error(for: response, instance: "x")
        #expect(error.requestID == "req_BodyLog123")
        #expect(error.code == .invalidRequest)
    }

    @Test func rateLimitedRetriesHonourRetryAfter() async throws {
        let transport = ScriptedTransport([
            .stripe(429, Fixture.error(type: "invalid_request_error", code: "rate_limit"), extra: ["Retry-After": "2"]),
            .stripe(200, Fixture.card()),
        ])
        let sleeps = SleepRecorder()
        _ = try await Fixture.provider(transport, sleeps: sleeps).card(Fixture.cardRef, context: OperationContext())
        #expect(sleeps.recorded == [.seconds(2)])
        #expect(transport.requestCount == 2)
    }
}
