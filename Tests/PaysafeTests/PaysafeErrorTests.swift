import CardGateway
@testable import CardGatewayPaysafe
import CardGatewayTesting
import Foundation
import Testing
import SharedTestSupport

@Suite("Paysafe error table", .timeLimit(.minutes(5)))
struct PaysafeErrorTests {
    /// A physical card waiting for activation, as the read before an activation sees it.
    static let issued = Fixture.cardJSON(status: "ISSUED", cardType: "PHYSICAL")

    static func errorBody(_ code: String, message: String = "Something failed", fieldErrors: String = "") -> String {
        #"{"error":{"code":"\#(code)","message":"\#(message)","details":["detail one"]\#(fieldErrors)}}"#
    }

    /// Every code row, each under a status that would map differently on its own (so the code row must win).
    static let codeRows: [(status: Int, code: String, expected: CardGatewayError.Code)] = [
        (404, "5269", .notFound),
        (400, "5269", .notFound),
        (400, "5068", .invalidRequest),
        (400, "5023", .invalidRequest),
        (400, "5279", .authenticationFailed),
        (400, "5275", .authenticationFailed),
        (400, "5270", .permissionDenied),
        (400, "1200", .rateLimited),
    ]

    /// The simulator's own `DW-CARD-*` codes appear in no Paysafe source: no row keys on them, so they map by status.
    @Test(
        "the simulator's own DW-CARD codes map by their status",
        arguments: [
            (400, "DW-CARD-INVALID-STATUS", CardGatewayError.Code.invalidRequest),
            (409, "DW-CARD-LIMIT-REACHED", .conflict),
        ])
    func simulatorCodes(_ status: Int, _ code: String, _ expected: CardGatewayError.Code) {
        #expect(PaysafeErrors.code(status: status, providerCode: code) == expected)
        #expect(!PaysafeErrors.codeRules.contains { $0.providerCode.hasPrefix("DW-") })
    }

    @Test("code rows", arguments: codeRows)
    func codeRow(_ status: Int, _ code: String, _ expected: CardGatewayError.Code) async throws {
        let harness = try Harness.scripted([.json(status, Self.errorBody(code))])
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == expected)
        #expect(error?.providerCode == code)
        #expect(error?.httpStatus == status)
        #expect(error?.providerKind == .paysafe)
        #expect(error?.mayHaveReachedProvider == false)
    }

    @Test("every code rule is covered by a test row")
    func allCodeRulesCovered() {
        let tested = Set(Self.codeRows.map(\.code))
        for rule in PaysafeErrors.codeRules {
            #expect(tested.contains(rule.providerCode), "\(rule.providerCode) has no test row")
        }
    }

    /// Every status row, with an undocumented provider code kept verbatim.
    static let statusRows: [(status: Int, expected: CardGatewayError.Code, retryable: Bool)] = [
        (400, .invalidRequest, false), (401, .authenticationFailed, false), (403, .permissionDenied, false),
        (404, .notFound, false),
        (405, .unsupported, false), (409, .conflict, false), (422, .invalidRequest, false), (429, .rateLimited, true),
        (500, .providerUnavailable, true), (502, .providerUnavailable, true), (503, .providerUnavailable, true),
        (504, .providerUnavailable, true),
        (418, .invalidRequest, false),
    ]

    @Test("status rows (undocumented code kept)", arguments: statusRows)
    func statusRow(_ status: Int, _ expected: CardGatewayError.Code, _ retryable: Bool) async throws {
        let harness = try Harness.make(retry: RetryPolicy.none) { _ in .json(status, Self.errorBody("X-NEW-\(status)"))
        }
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == expected)
        #expect(error?.providerCode == "X-NEW-\(status)")
        #expect(error?.httpStatus == status)
        #expect(error?.isRetryable == retryable)
        #expect(error?.mayHaveReachedProvider == (status >= 500))
    }

    @Test("5xx wins over a code row")
    func serverErrorWins() {
        #expect(PaysafeErrors.code(status: 500, providerCode: "5269") == .providerUnavailable)
    }

    @Test("the code from X-Application-Status-Code when the body has none")
    func codeFromHeader() async throws {
        let harness = try Harness.scripted([
            .response(status: 404, headers: ["X-Application-Status-Code": "5269"], body: Data("not json".utf8))
        ])
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .notFound)
        #expect(error?.providerCode == "5269")
    }

    @Test("a numeric code is kept as text")
    func numericCode() async throws {
        let harness = try Harness.scripted([.json(404, #"{"error":{"code":5269,"message":"Entity not found"}}"#)])
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .notFound)
        #expect(error?.providerCode == "5269")
    }

    @Test("field errors are kept")
    func fieldErrors() async throws {
        let fields =
            #","fieldErrors":[{"field":"deliveryAddress.city","error":"size must be between 0 and 30"},{"field":"currency","error":"invalid"}]"#
        let harness = try Harness.scripted([
            .json(400, Self.errorBody("5068", message: "Field error(s)", fieldErrors: fields))
        ])
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .invalidRequest)
        #expect(
            error?.fieldErrors == [
                .init(field: "deliveryAddress.city", message: "size must be between 0 and 30"),
                .init(field: "currency", message: "invalid"),
            ])
        #expect(error?.message.contains("Field error(s)") == true)
    }

    @Test("Retry-After on 429")
    func retryAfter() async throws {
        let harness = try Harness.make(retry: RetryPolicy.none) { _ in
            .json(429, Self.errorBody("1200"), headers: ["Retry-After": "7"])
        }
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter == .seconds(7))
        #expect(error?.isRetryable == true)
    }

    @Test("the request id from the response headers")
    func requestID() async throws {
        let harness = try Harness.scripted([.json(404, Self.errorBody("5269"), headers: ["X-Request-Id": "req-42"])])
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.requestID == "req-42")
    }

    @Test("a provider message with a card number is scrubbed")
    func scrubbed() async throws {
        let harness = try Harness.scripted([
            .json(400, Self.errorBody("5068", message: "card 5339441234567009 invalid"))
        ])
        let error = await gatewayError { _ = try await harness.provider.card(Fixture.ref, context: OperationContext()) }
        #expect(error?.description.contains("5339441234567009") == false)
    }

    @Test("a read is retried on 503 and then succeeds")
    func readRetried() async throws {
        let harness = try Harness.scripted([.json(503, Self.errorBody("X")), .json(200, Fixture.cardJSON())])
        let card = try await harness.provider.card(Fixture.ref, context: OperationContext())
        #expect(card.status == .active)
        #expect(harness.businessRequests.count == 2)
    }

    @Test("a write is not retried on 503 (no idempotency key at Paysafe)")
    func writeNotRetried() async throws {
        let harness = try Harness.scripted([
            .json(200, Self.issued), .json(503, Self.errorBody("X")), .json(200, Fixture.cardJSON()),
        ])
        let request = ActivateCardRequest(card: Fixture.ref, lastFour: "7009", cvv: Secret("123"))
        let error = await gatewayError {
            _ = try await harness.provider.activateCard(request, context: OperationContext())
        }
        #expect(error?.code == .providerUnavailable)
        #expect(error?.mayHaveReachedProvider == true)
        #expect(harness.businessRequests.map(\.method) == ["GET", "POST"])
        #expect(harness.businessRequests[1].header("Idempotency-Key") == nil)
        #expect(error?.isRetryable == false, "a write that may have happened is looked up, not repeated")
        #expect(error?.message.contains("check its outcome") == true)

        let read = try Harness.scripted([
            .json(503, Self.errorBody("X")), .json(503, Self.errorBody("X")), .json(503, Self.errorBody("X")),
        ])
        let readError = await gatewayError {
            _ = try await read.provider.card(Fixture.ref, context: OperationContext())
        }
        #expect(readError?.code == .providerUnavailable)
        #expect(readError?.isRetryable == true, "a read may be repeated")
    }

    @Test("a write is retried when the connection never opened")
    func writeRetriedWhenNeverSent() async throws {
        let replies = Counter()
        let harness = try Harness.make { request in
            if request.method == "GET" { return .json(200, Self.issued) }
            return replies.next() == 1
                ? .failure(TransportError(.connectFailed, "refused")) : .json(200, Fixture.cardJSON())
        }
        let request = ActivateCardRequest(card: Fixture.ref, lastFour: "7009", cvv: Secret("123"))
        _ = try await harness.provider.activateCard(request, context: OperationContext())
        #expect(harness.businessRequests.map(\.method) == ["GET", "POST", "POST"])
    }

    @Test("a write that timed out is not repeated")
    func writeTimeout() async throws {
        let harness = try Harness.make { request in
            request.method == "GET" ? .json(200, Self.issued) : .failure(TransportError(.timeout, "slow"))
        }
        let request = ActivateCardRequest(card: Fixture.ref, lastFour: "7009", cvv: Secret("123"))
        let error = await gatewayError {
            _ = try await harness.provider.activateCard(request, context: OperationContext())
        }
        #expect(error?.code == .timeout)
        #expect(error?.mayHaveReachedProvider == true)
        #expect(error?.isRetryable == false)
        #expect(harness.businessRequests.map(\.method) == ["GET", "POST"])
    }

    @Test("the scaDetails marker is found wherever it is, and only there")
    func scaMarkerSearch() {
        for (text, expected) in [
            ("", false), (#""scaDetails""#, true), (#"{"id":"c1","scaDetails":{"eventId":"e"}}"#, true),
            (#"x"scaDetails""#, true),
            (#""scaDetails"x"#, true), (#""scaDetail""#, false), (#"scaDetails""#, false), (#""scaDetails"#, false),
            (#""scaDetailsD""#, false), (#""sca Details""#, false), ("DDDDDDDDDDDD", false), (#"é"scaDetails"é"#, true),
        ] {
            let body = Data(text.utf8)
            #expect(PaysafeProvider.mentionsSCADetails(body) == expected, "\(text)")
            // At an offset inside a larger buffer (a slice's indices do not start at zero).
            let padded = Data("xx".utf8) + body
            #expect(PaysafeProvider.mentionsSCADetails(padded[2...]) == expected, "\(text)")
        }
    }
}
