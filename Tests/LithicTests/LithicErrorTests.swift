@_spi(AdapterSupport) import CardGateway
import Foundation
import HTTPTypes
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayLithic

/// One test per row of the table in LithicErrors.swift.
@Suite("Lithic error table", .timeLimit(.minutes(5)))
struct LithicErrorTests {
    struct Row: Sendable, CustomStringConvertible {
        var status: Int
        var expected: CardGatewayError.Code
        var retryable: Bool
        var mayHaveReached: Bool
        var description: String { "\(status) → \(expected)" }
    }

    static let rows: [Row] = [
        Row(status: 400, expected: .invalidRequest, retryable: false, mayHaveReached: false),
        Row(status: 401, expected: .authenticationFailed, retryable: false, mayHaveReached: false),
        Row(status: 403, expected: .permissionDenied, retryable: false, mayHaveReached: false),
        Row(status: 404, expected: .notFound, retryable: false, mayHaveReached: false),
        Row(status: 409, expected: .invalidCardState, retryable: false, mayHaveReached: false),
        Row(status: 422, expected: .invalidRequest, retryable: false, mayHaveReached: false),
        Row(status: 429, expected: .rateLimited, retryable: true, mayHaveReached: false),
        Row(status: 500, expected: .providerUnavailable, retryable: true, mayHaveReached: true),
        Row(status: 503, expected: .providerUnavailable, retryable: true, mayHaveReached: true),
        Row(status: 418, expected: .invalidRequest, retryable: false, mayHaveReached: false),
        Row(status: 302, expected: .invalidResponse, retryable: false, mayHaveReached: true),
    ]

    @Test(arguments: rows)
    func row(_ row: Row) throws {
        var headers = HTTPFields()
        headers[HTTPField.Name("Retry-After")!] = "4"
        let body = Data(
            #"{"message":"Simulated refusal for tests","debugging_request_id":"6e1c9a7e-5b7b-4d2a-8f39-2c6f0e1d9b11"}"#
                .utf8)
        let error = LithicErrors.error(
            for: ProviderResponse(status: row.status, headers: headers, body: body), instance: "lithic")
        #expect(error.code == row.expected)
        #expect(error.isRetryable == row.retryable)
        #expect(error.mayHaveReachedProvider == row.mayHaveReached)
        #expect(error.httpStatus == row.status)
        #expect(error.providerKind == .lithic)
        #expect(error.provider == "lithic")
        #expect(error.requestID == "6e1c9a7e-5b7b-4d2a-8f39-2c6f0e1d9b11")
        #expect(error.message.contains("Simulated refusal for tests"))
        #expect(error.retryAfter == (row.retryable ? .seconds(4) : nil))
    }

    @Test("a message echoing the API key or a card number is redacted; a body that is not Lithic's maps by status")
    func redactionAndForeignBodies() {
        let key = "sim-lithic-api-key-00000000000000000001"
        let body = Data(#"{"message":"bad key \#(key) for 4111111289144142","debugging_request_id":"x"}"#.utf8)
        let error = LithicErrors.error(
            for: ProviderResponse(status: 401, headers: [:], body: body), instance: "lithic", redacting: [key])
        #expect(!error.message.contains(key))
        #expect(!error.message.contains("4111111289144142"))
        let foreign = LithicErrors.error(
            for: ProviderResponse(status: 404, headers: [:], body: Data("<html>".utf8)), instance: "lithic")
        #expect(foreign.code == .notFound && foreign.requestID == nil)
    }

    @Test("the simulator's 401 for a wrong key is authenticationFailed through the adapter")
    func wrongKey() async throws {
        try await LithicFixture.withHarness { h in
            let http = try ProviderHTTPClient(
                instance: "lithic-wrong", kind: .lithic, baseURL: h.handle.baseURL,
                transport: h.transport, retry: .none)
            let provider = try LithicProvider(http: http, apiKey: Secret("not-the-key-0000000000"))
            let error = await gatewayError {
                _ = try await provider.card(CardRef(id: Seed.activeCard), context: h.context)
            }
            #expect(error?.code == .authenticationFailed)
            #expect(error?.message.contains("Could not find API key") == true)
        }
    }
}
