import CardGateway
import CardGatewayTesting
@testable import CardGatewayTrustPayments
import Foundation
import Testing
import SharedTestSupport

/// A Webservices answer to a charge, built from the docs' response envelope.
func webservicesBody(requestReference: String = "Atest0001", elements: [[String: Any]]) throws -> Data {
    try JSONText.data([
        "requestreference": requestReference, "version": "1.00", "response": elements, "secrand": "qTFlr",
    ])
}

func authElement(
    reference: String = "2-9-4617573", errorcode: String = "0", settlestatus: String = "0", extra: [String: Any] = [:]
) -> [String: Any] {
    var element: [String: Any] = [
        "requesttypedescription": "AUTH", "errorcode": errorcode, "errormessage": errorcode == "0" ? "Ok" : "Error",
        "transactionreference": reference, "settlestatus": settlestatus, "parenttransactionreference": "2-9-4617572",
        "maskedpan": "411111######1111", "paymenttypedescription": "VISA", "authcode": "TEST12",
        "acquirerresponsecode": "00",
        "baseamount": "1050", "currencyiso3a": "GBP", "accounttypedescription": "ECOM", "requestreference": "Atest0001",
        "transactionstartedtimestamp": "2024-11-06 13:42:13", "livestatus": "0", "operatorname": "ws@merchant.test",
    ]
    element.merge(extra) { _, new in new }
    return element
}

@Suite("Trust Payments merchant-initiated charges", .timeLimit(.minutes(5)))
struct ChargeTests {
    let money = Money(minorUnits: 1050, currency: "GBP")

    @Test(
        "each initiation reason goes on the wire as documented",
        arguments: [
            (MerchantInitiatedReason.reauthorisation, "A"), (.unscheduled, "C"), (.delayed, "D"),
        ])
    func wire(reason: MerchantInitiatedReason, letter: String) async throws {
        let transport = ScriptedTransport([
            .response(
                status: 200, headers: ["Content-Type": "application/json"],
                body: try webservicesBody(elements: [authElement()]))
        ])
        let provider = try Fixture.provider(transport: transport)
        let result = try await provider.charge(
            ChargeRequest(
                reference: "2-9-4617572", amount: money, initiator: .merchant(reason), orderReference: "order-9"),
            context: OperationContext()
        )
        #expect(result.transactionReference == "2-9-4617573")
        #expect(transport.requestCount == 1)
        let sent = try #require(transport.requests.first)
        #expect(sent.method == "POST")
        #expect(sent.path == "/json/")
        #expect(sent.request.scheme == "https")
        #expect(sent.request.authority == "webservices.securetrading.net")
        #expect(sent.header("Content-Type") == "application/json;charset=utf-8")
        #expect(sent.header("Accept") == "application/json")
        let basic =
            "Basic " + Data("\(Fixture.webservicesUsername):\(Fixture.webservicesPassword)".utf8).base64EncodedString()
        #expect(sent.header("Authorization") == basic)
        #expect(sent.header("REQUESTREFERENCE") == "Atest0001")
        let expected: [String: Any] = [
            "alias": Fixture.webservicesUsername, "version": "1.00", "libraryversion": "swift_cardgateway_1.0",
            "request": [
                [
                    "requesttypedescriptions": ["AUTH"], "accounttypedescription": "ECOM",
                    "sitereference": Fixture.siteReference,
                    "parenttransactionreference": "2-9-4617572", "baseamount": "1050", "currencyiso3a": "GBP",
                    "credentialsonfile": "2", "initiationreason": letter, "requestreference": "Atest0001",
                    "versioninfo": "Swift::6::CardGateway::1.0", "orderreference": "order-9",
                ]
            ],
        ]
        #expect(try JSONText.same(sent.body, expected))
    }

    @Test("no orderreference is sent when none is given")
    func noOrderReference() async throws {
        let transport = ScriptedTransport([.response(status: 200, body: try webservicesBody(elements: [authElement()]))]
        )
        _ = try await Fixture.provider(transport: transport).charge(
            ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .merchant(.unscheduled)),
            context: OperationContext())
        let request = try #require(try JSONText.object(transport.requests.first?.body)["request"] as? [[String: Any]])
        #expect(request.first?["orderreference"] == nil)
    }

    @Test(
        "settlestatus maps to the charge status",
        arguments: [
            ("0", ChargeStatus.authorised), ("1", .authorised), ("10", .authorised), ("100", .settled),
            ("2", .suspended),
        ])
    func statuses(settlestatus: String, status: ChargeStatus) async throws {
        let transport = ScriptedTransport([
            .response(status: 200, body: try webservicesBody(elements: [authElement(settlestatus: settlestatus)]))
        ])
        let result = try await Fixture.provider(transport: transport).charge(
            ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .merchant(.unscheduled)),
            context: OperationContext()
        )
        #expect(result.status == status)
        #expect(result.providerStatus == settlestatus)
        #expect(result.parentReference == "2-9-4617572")
        #expect(result.authCode == "TEST12")
        #expect(result.amount == money)
    }

    @Test("settlestatus 3 (cancelled) is a decline; an undocumented settlestatus is invalidResponse")
    func badStatuses() async throws {
        for (settle, code) in [("3", CardGatewayError.Code.declined), ("7", .invalidResponse)] {
            let transport = ScriptedTransport([
                .response(status: 200, body: try webservicesBody(elements: [authElement(settlestatus: settle)]))
            ])
            let error = await gatewayError {
                _ = try await Fixture.provider(transport: transport).charge(
                    ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .merchant(.delayed)),
                    context: OperationContext())
            }
            #expect(error?.code == code)
            #expect(error?.mayHaveReachedProvider == true)
        }
    }

    @Test("a customer-initiated charge is refused before anything is sent")
    func customerInitiated() async throws {
        let transport = ScriptedTransport([])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport: transport).charge(
                ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .customer),
                context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.fieldErrors.map(\.field) == ["initiator"])
        #expect(error?.message.contains("reuse client session") == true)
        #expect(transport.requestCount == 0)
    }

    @Test("validation lists every problem and sends nothing")
    func validation() async throws {
        let transport = ScriptedTransport([])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport: transport).charge(
                ChargeRequest(
                    reference: "", amount: Money(minorUnits: 0, currency: "POUND"), initiator: .merchant(.unscheduled),
                    orderReference: "\n"),
                context: OperationContext()
            )
        }
        #expect(error?.code == .invalidRequest)
        #expect(
            Set(error?.fieldErrors.map(\.field) ?? []) == ["reference", "amount", "amount.currency", "orderReference"])
        #expect(transport.requestCount == 0)
    }

    @Test("a response answering another requestreference is invalidResponse, like the official client's code 9")
    func requestReferenceMismatch() async throws {
        for body in [
            try webservicesBody(requestReference: "Aother0001", elements: [authElement()]),
            try JSONText.data(["version": "1.00", "response": [authElement()]]),
        ] {
            let transport = ScriptedTransport([.response(status: 200, body: body)])
            let error = await gatewayError {
                _ = try await Fixture.provider(transport: transport).charge(
                    ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .merchant(.unscheduled)),
                    context: OperationContext())
            }
            #expect(error?.code == .invalidResponse)
            #expect(error?.mayHaveReachedProvider == true)
            #expect(transport.requestCount == 1)
        }
    }

    @Test("every element of the response is checked")
    func everyElement() async throws {
        let failing: [String: Any] = [
            "requesttypedescription": "ERROR", "errorcode": "30000", "errormessage": "Invalid field",
            "errordata": ["baseamount"],
        ]
        let transport = ScriptedTransport([
            .response(status: 200, body: try webservicesBody(elements: [authElement(), failing]))
        ])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport: transport).charge(
                ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .merchant(.unscheduled)),
                context: OperationContext())
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.fieldErrors.map(\.field) == ["baseamount"])
        #expect(error?.providerCode == "30000")
        #expect(error?.requestID == "Atest0001")
    }

    @Test("malformed or incomplete bodies are invalidResponse")
    func malformed() async throws {
        var noReference = authElement()
        noReference.removeValue(forKey: "transactionreference")
        var noSettle = authElement()
        noSettle.removeValue(forKey: "settlestatus")
        let bodies: [Data] = [
            Data("<html>oops</html>".utf8), Data("[]".utf8),
            try JSONText.data(["requestreference": "Atest0001", "version": "1.00"]),
            try webservicesBody(elements: []), try webservicesBody(elements: [noReference]),
            try webservicesBody(elements: [noSettle]),
            try webservicesBody(elements: [["errormessage": "Ok"]]),
        ]
        for body in bodies {
            let transport = ScriptedTransport([.response(status: 200, body: body)])
            let error = await gatewayError {
                _ = try await Fixture.provider(transport: transport).charge(
                    ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .merchant(.unscheduled)),
                    context: OperationContext())
            }
            #expect(error?.code == .invalidResponse)
        }
    }

    @Test(
        "HTTP statuses map: 401 authenticationFailed, 404 notFound, 429 rateLimited, 5xx providerUnavailable, never repeated",
        arguments: [
            (401, CardGatewayError.Code.authenticationFailed), (403, .permissionDenied), (404, .notFound),
            (400, .invalidRequest),
            (429, .rateLimited), (500, .providerUnavailable), (503, .providerUnavailable), (302, .invalidResponse),
        ])
    func httpStatuses(status: Int, code: CardGatewayError.Code) async throws {
        let transport = ScriptedTransport(
            [
                .response(
                    status: status, headers: ["Retry-After": "3"],
                    body: Data("<html>401 Authorization Required</html>".utf8))
            ], fallback: .response(status: 200, body: try webservicesBody(elements: [authElement()])))
        let error = await gatewayError {
            _ = try await Fixture.provider(transport: transport).charge(
                ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .merchant(.unscheduled)),
                context: OperationContext())
        }
        #expect(error?.code == code)
        #expect(error?.httpStatus == status)
        #expect(error?.providerKind == .trustpayments)
        #expect(transport.requestCount == 1)
        if status == 429 { #expect(error?.retryAfter == .seconds(3)) }
        #expect(error?.isRetryable == (status == 429), "only a rate limit says the charge was not processed")
        #expect(
            error?.mayHaveReachedProvider == (status != 429),
            "a rate limit turned the charge away unprocessed; any other status leaves it open")
        if status >= 500 { #expect(error?.message.contains("check the transaction") == true) }
    }

    @Test(
        "an ambiguous transport failure is never repeated",
        arguments: [TransportError.Kind.connectionClosed, .timeout, .other])
    func noRetryWhenAmbiguous(kind: TransportError.Kind) async throws {
        let transport = ScriptedTransport(
            [.failure(TransportError(kind, "lost"))],
            fallback: .response(status: 200, body: try webservicesBody(elements: [authElement()])))
        let error = await gatewayError {
            _ = try await Fixture.provider(transport: transport).charge(
                ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .merchant(.unscheduled)),
                context: OperationContext())
        }
        #expect(transport.requestCount == 1)
        #expect(error?.mayHaveReachedProvider == true)
        #expect(error?.code == (kind == .timeout ? .timeout : .transport))
        #expect(error?.isRetryable == false, "a charge that may have arrived is checked, not repeated")
    }

    @Test("a connection that never opened is retried with the same request")
    func retryWhenNeverSent() async throws {
        let transport = ScriptedTransport([
            .failure(TransportError(.connectFailed, "refused")),
            .response(status: 200, body: try webservicesBody(elements: [authElement()])),
        ])
        let result = try await Fixture.provider(transport: transport).charge(
            ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .merchant(.unscheduled)),
            context: OperationContext())
        #expect(result.status == .authorised)
        #expect(transport.requestCount == 2)
        #expect(transport.requests[0].body == transport.requests[1].body)
    }

    @Test(
        "an amount or currency other than the one asked for is invalidResponse naming the transaction",
        arguments: [
            ["baseamount": "999"], ["currencyiso3a": "EUR"], ["baseamount": "1050", "currencyiso3a": "EUR"],
            ["baseamount": "ten"],
        ])
    func reportedAmountMismatch(extra: [String: String]) async throws {
        let transport = ScriptedTransport([
            .response(status: 200, body: try webservicesBody(elements: [authElement(extra: extra)]))
        ])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport: transport).charge(
                ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .merchant(.unscheduled)),
                context: OperationContext())
        }
        #expect(error?.code == .invalidResponse)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("MyST") == true)
    }

    @Test("the amount asked for, when the gateway echoes it, is returned")
    func reportedAmountMatches() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 200,
                body: try webservicesBody(elements: [
                    authElement(extra: [
                        "baseamount": "\(money.minorUnits)", "currencyiso3a": money.currency.lowercased(),
                    ])
                ]))
        ])
        let result = try await Fixture.provider(transport: transport).charge(
            ChargeRequest(reference: "2-9-4617572", amount: money, initiator: .merchant(.unscheduled)),
            context: OperationContext())
        #expect(result.amount == money)
    }

    @Test("each request gets its own random requestreference by default")
    func randomReferences() {
        let first = TrustPaymentsProvider.randomRequestReference()
        let second = TrustPaymentsProvider.randomRequestReference()
        #expect(first.count == 9 && first.hasPrefix("A"))
        #expect(first != second)
        // Every one of the 36 characters turns up in every position, and nothing else does.
        let alphabet = Set("abcdefghijklmnopqrstuvwxyz0123456789")
        var seen = Array(repeating: Set<Character>(), count: 8)
        var neighboursAlike = 0
        for _ in 0..<2_000 {
            let reference = Array(TrustPaymentsProvider.randomRequestReference())
            #expect(reference.count == 9 && reference[0] == "A")
            for position in 0..<8 { seen[position].insert(reference[position + 1]) }
            neighboursAlike += (1..<8).filter { reference[$0] == reference[$0 + 1] }.count
        }
        #expect(seen.allSatisfy { $0 == alphabet }, "\(seen.map { $0.count })")
        // Positions are independent: two neighbours agree about once in 36 (about 390 of 14 000 pairs), not always.
        #expect(neighboursAlike < 800, "\(neighboursAlike) of 14 000 neighbouring pairs alike")
    }
}

@Suite("Trust Payments error table", .timeLimit(.minutes(5)))
struct ErrorTableTests {
    /// Every documented row, with what it must map to.
    static let expectations: [(String, CardGatewayError.Code, Bool)] = [
        ("30000", .invalidRequest, false), ("30001", .invalidConfiguration, false), ("30006", .permissionDenied, false),
        ("30007", .invalidRequest, false), ("10205", .invalidRequest, false), ("20004", .notFound, false),
        ("20033", .invalidRequest, false),
        ("60010", .providerUnavailable, false), ("60022", .declined, false), ("60023", .permissionDenied, false),
        ("60025", .invalidRequest, false),
        ("60034", .providerUnavailable, false), ("60038", .providerUnavailable, false), ("30002", .declined, false),
        ("60036", .declined, false), ("60042", .declined, false), ("60043", .declined, false),
        ("60044", .declined, false), ("60045", .declined, false),
        ("60500", .providerUnavailable, false), ("70000", .declined, false), ("70001", .providerUnavailable, false),
        ("71000", .declined, false),
        ("72000", .declined, false), ("79000", .providerUnavailable, false), ("79001", .providerUnavailable, true),
        ("88000", .providerUnavailable, true),
        ("50000", .providerUnavailable, false), ("99999", .providerUnavailable, false),
    ]

    @Test("the table has exactly the rows the tests cover")
    func coverage() {
        #expect(Set(TrustPaymentsErrors.rows.keys) == Set(Self.expectations.map(\.0)))
    }

    @Test("each documented errorcode maps through a charge response", arguments: ErrorTableTests.expectations)
    func row(code: String, expected: CardGatewayError.Code, retryable: Bool) async throws {
        #expect(TrustPaymentsErrors.rows[code]?.code == expected)
        let element: [String: Any] = [
            "requesttypedescription": code == "30000" ? "ERROR" : "AUTH", "errorcode": code,
            "errormessage": "message for 4111111111111111",
            "errordata": code == "30000" ? ["parenttransactionreference", "baseamount"] : [],
            "transactionreference": "2-9-1", "settlestatus": "3",
        ]
        let transport = ScriptedTransport([.response(status: 200, body: try webservicesBody(elements: [element]))])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport: transport).charge(
                ChargeRequest(
                    reference: "2-9-4617572", amount: Money(minorUnits: 1050, currency: "GBP"),
                    initiator: .merchant(.unscheduled)), context: OperationContext()
            )
        }
        #expect(error?.code == expected)
        #expect(error?.providerCode == code)
        #expect(error?.isRetryable == retryable)
        #expect(error?.mayHaveReachedProvider == true)
        #expect(error?.provider == Fixture.instance)
        #expect(error?.description.contains("4111111111111111") == false)
        if code == "30000" { #expect(error?.fieldErrors.map(\.field) == ["parenttransactionreference", "baseamount"]) }
        if code == "71000" { #expect(error?.message.contains("3-D Secure") == true) }
    }

    @Test(
        "an undocumented errorcode maps by its family and keeps the raw code",
        arguments: [
            ("20999", CardGatewayError.Code.invalidRequest), ("31000", .invalidRequest), ("70999", .declined),
            ("60999", .providerUnavailable), ("88888", .providerUnavailable),
        ])
    func fallback(code: String, expected: CardGatewayError.Code) async throws {
        let transport = ScriptedTransport([
            .response(status: 200, body: try webservicesBody(elements: [authElement(errorcode: code)]))
        ])
        let error = await gatewayError {
            _ = try await Fixture.provider(transport: transport).charge(
                ChargeRequest(
                    reference: "2-9-4617572", amount: Money(minorUnits: 1050, currency: "GBP"),
                    initiator: .merchant(.unscheduled)), context: OperationContext()
            )
        }
        #expect(error?.code == expected)
        #expect(error?.providerCode == code)
        #expect(error?.message.contains("does not know") == true)
    }
}
