import CardGateway
import CardGatewayTesting
import Foundation
import Testing

@testable import CardGatewayAdyen
import SharedTestSupport

@Suite("Adyen RestServiceError mapping, row by row", .timeLimit(.minutes(5)))
struct AdyenErrorTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var status: Int
        var errorCode: String
        var expected: CardGatewayError.Code
        var retryable: Bool
        var mayHaveReached: Bool
        var testDescription: String { "\(status) \(errorCode) → \(expected)" }
    }

    /// Every row of the table in `AdyenErrors`.
    static let rows: [Row] = [
        Row(status: 400, errorCode: "00_400", expected: .invalidRequest, retryable: false, mayHaveReached: false),
        Row(status: 401, errorCode: "00_401", expected: .authenticationFailed, retryable: false, mayHaveReached: false),
        Row(status: 403, errorCode: "00_403", expected: .permissionDenied, retryable: false, mayHaveReached: false),
        Row(status: 404, errorCode: "00_404", expected: .notFound, retryable: false, mayHaveReached: false),
        Row(status: 408, errorCode: "00_408", expected: .timeout, retryable: true, mayHaveReached: true),
        Row(status: 409, errorCode: "704", expected: .conflict, retryable: false, mayHaveReached: false),
        Row(status: 422, errorCode: "30_031", expected: .invalidRequest, retryable: false, mayHaveReached: false),
        Row(status: 429, errorCode: "00_429", expected: .rateLimited, retryable: true, mayHaveReached: false),
        Row(status: 500, errorCode: "00_500", expected: .providerUnavailable, retryable: true, mayHaveReached: true),
        Row(status: 502, errorCode: "99_502", expected: .providerUnavailable, retryable: true, mayHaveReached: true),
        Row(status: 503, errorCode: "99_500", expected: .providerUnavailable, retryable: true, mayHaveReached: true),
        Row(status: 418, errorCode: "00_418", expected: .invalidRequest, retryable: false, mayHaveReached: false),
        // the core table: an unexpected status leaves the outcome open
        Row(status: 302, errorCode: "00_302", expected: .invalidResponse, retryable: false, mayHaveReached: true),
    ]

    @Test("each status maps to its code, keeping errorCode, status, requestId, retryability", arguments: rows)
    func row(_ row: Row) async throws {
        let body = Fixture.restError(
            status: row.status, errorCode: row.errorCode, title: "Some title", detail: "Some detail.",
            requestId: "1W1UI15PLVGC9V8O")
        let transport = ScriptedTransport([.json(row.status, body)])
        let provider = try Fixture.provider(transport, retry: RetryPolicy.none)
        let error = await gatewayError { _ = try await provider.card(CardRef(id: "PI1"), context: OperationContext()) }
        #expect(error?.code == row.expected)
        #expect(error?.providerCode == row.errorCode)
        #expect(error?.httpStatus == row.status)
        #expect(error?.requestID == "1W1UI15PLVGC9V8O")
        #expect(error?.isRetryable == row.retryable)
        #expect(error?.mayHaveReachedProvider == row.mayHaveReached)
        #expect(error?.provider == "adyen-eu")
        #expect(error?.providerKind == .adyen)
        #expect(error?.message.contains("Some title") == true)
        #expect(error?.message.contains("Some detail.") == true)
        #expect(AdyenErrors.code(forStatus: row.status) == row.expected)
    }

    @Test("403 00_403 on activation data names the activation data role")
    func missingActivationRole() async throws {
        let body = Fixture.restError(
            status: 403, errorCode: "00_403", title: "Forbidden",
            detail: "Not the right permission to access this service.",
            type: "https://docs.adyen.com/errors/security/unauthorized")
        let transport = ScriptedTransport([.json(403, body)])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport).provision(
                ProvisioningRequest(card: CardRef(id: "PI1"), wallet: .applePay, input: .issuerSDK(output: nil)),
                context: OperationContext())
        }
        #expect(error?.code == .permissionDenied)
        #expect(error?.providerCode == "00_403")
        #expect(error?.message.contains("Bank Issuing PaymentInstrument Network Token Activation Data role") == true)
        #expect(error?.message.contains("Not the right permission") == true)
    }

    @Test("403 00_403 on network token calls names the network tokens role")
    func missingTokensRole() async throws {
        let body = Fixture.restError(
            status: 403, errorCode: "00_403", title: "Forbidden",
            detail: "Not the right permission to access this service.")
        let transport = ScriptedTransport([.json(403, body), .json(403, body)])
        let provider = try Fixture.provider(transport)
        let list = await gatewayError {
            _ = try await provider.networkTokens(for: CardRef(id: "PI1"), context: OperationContext())
        }
        #expect(list?.message.contains("network tokens role") == true)
        #expect(list?.message.contains("Activation Data") == false)
        let patch = await gatewayError {
            try await provider.updateNetworkToken(id: "NWTK1", status: .suspended, context: OperationContext())
        }
        #expect(patch?.code == .permissionDenied)
        #expect(patch?.message.contains("network tokens role") == true)
    }

    @Test("a 403 with another errorCode, or none, still names the role the endpoint needs")
    func otherForbidden() async throws {
        let transport = ScriptedTransport([
            .json(403, Fixture.restError(status: 403, errorCode: "00_499", detail: "Blocked.")),
            .response(status: 403, body: Data()),
        ])
        let provider = try Fixture.provider(transport)
        let error = await gatewayError {
            _ = try await provider.provision(
                ProvisioningRequest(card: CardRef(id: "PI1"), wallet: .applePay, input: .issuerSDK(output: nil)),
                context: OperationContext())
        }
        #expect(error?.code == .permissionDenied)
        #expect(error?.providerCode == "00_499")
        #expect(error?.message.contains("Network Token Activation Data role") == true)
        let bare = await gatewayError { _ = try await provider.card(CardRef(id: "PI1"), context: OperationContext()) }
        #expect(bare?.code == .permissionDenied)
        #expect(bare?.message.contains("role to read payment instruments") == true)
    }

    @Test("invalidFields become field errors; their values never reach the message or description")
    func invalidFields() async throws {
        let fields = """
            [{"name": "sdkOutput", "value": "4111111111111111", "message": "Invalid sdkOutput"},
             {"name": "card.number", "value": "SECRETVALUE-123", "message": "Card number 4111111111111111 is invalid"}]
            """
        let transport = ScriptedTransport([
            .json(422, Fixture.restError(status: 422, errorCode: "30_001", invalidFields: fields))
        ])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport).card(CardRef(id: "PI1"), context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.fieldErrors.map(\.field) == ["sdkOutput", "card.number"])
        #expect(error?.fieldErrors.first?.message == "Invalid sdkOutput")
        let description = error?.description ?? ""
        #expect(!description.contains("4111111111111111"))
        #expect(!description.contains("SECRETVALUE"))
    }

    @Test("the requestID comes from the body, else from the pspReference header")
    func requestIDSources() async throws {
        let withHeader = ScriptedTransport([
            .json(404, Fixture.restError(status: 404, errorCode: "00_404"), headers: ["pspReference": "PSP-123"])
        ])
        let headerError = await gatewayError {
            _ = try await Fixture.provider(withHeader).card(CardRef(id: "PI1"), context: OperationContext())
        }
        #expect(headerError?.requestID == "PSP-123")

        let both = ScriptedTransport([
            .json(
                404, Fixture.restError(status: 404, errorCode: "00_404", requestId: "BODY-1"),
                headers: ["pspReference": "PSP-123"])
        ])
        let bothError = await gatewayError {
            _ = try await Fixture.provider(both).card(CardRef(id: "PI1"), context: OperationContext())
        }
        #expect(bothError?.requestID == "BODY-1")
    }

    @Test("429 keeps Retry-After; a non-JSON 502 still maps by status with no provider code")
    func retryAfterAndNonJSON() async throws {
        let limited = ScriptedTransport([
            .json(429, Fixture.restError(status: 429, errorCode: "00_429"), headers: ["Retry-After": "120"])
        ])
        let limitedError = await gatewayError {
            _ = try await Fixture.provider(limited, retry: RetryPolicy.none).card(
                CardRef(id: "PI1"), context: OperationContext())
        }
        #expect(limitedError?.code == .rateLimited)
        #expect(limitedError?.retryAfter == .seconds(120))

        let gateway = ScriptedTransport([
            .response(status: 502, headers: ["Content-Type": "text/html"], body: Data("<html>Bad gateway</html>".utf8))
        ])
        let gatewayError = await gatewayError {
            _ = try await Fixture.provider(gateway, retry: RetryPolicy.none).card(
                CardRef(id: "PI1"), context: OperationContext())
        }
        #expect(gatewayError?.code == .providerUnavailable)
        #expect(gatewayError?.providerCode == nil)
        #expect(gatewayError?.description.contains("html") == false)
    }

    @Test("reads are retried on 503 and then mapped; a 401 is not retried")
    func retries() async throws {
        let unavailable = ScriptedTransport(handler: { _ in
            .json(503, Fixture.restError(status: 503, errorCode: "99_500"))
        })
        let error = await gatewayError {
            _ = try await Fixture.provider(unavailable).card(CardRef(id: "PI1"), context: OperationContext())
        }
        #expect(error?.code == .providerUnavailable)
        #expect(unavailable.requestCount == 3)

        let unauthorized = ScriptedTransport(handler: { _ in
            .json(401, Fixture.restError(status: 401, errorCode: "00_401"))
        })
        let authError = await gatewayError {
            _ = try await Fixture.provider(unauthorized).card(CardRef(id: "PI1"), context: OperationContext())
        }
        #expect(authError?.code == .authenticationFailed)
        #expect(unauthorized.requestCount == 1)
    }
}
