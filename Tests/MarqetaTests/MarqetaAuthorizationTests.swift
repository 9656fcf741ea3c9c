import AsyncHTTPClient
@_spi(AdapterSupport) import CardGateway
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Hummingbird
import MarqetaSimulator
import NIOCore
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayMarqeta

/// Gateway JIT Funding: Marqeta's published transaction example read as a JIT Funding request, the answers in
/// Marqeta's wire (HTTP 200 / 402 with `jit_funding`), every decline reason's mapping, the Basic credentials, and the
/// simulator playing Marqeta end to end against a Hummingbird endpoint that calls `CardGateway.respondToAuthorization`.
@Suite("Marqeta Gateway JIT Funding", .timeLimit(.minutes(2)))
struct MarqetaAuthorizationTests {
    static let basic =
        "Basic " + Data("\(Seed.authorizationUsername):\(Seed.authorizationPassword)".utf8).base64EncodedString()

    static func provider(credentials: Bool = true) throws -> MarqetaProvider {
        let http = try ProviderHTTPClient(
            instance: "marqeta-jit", kind: .marqeta, baseURL: URL(string: "https://sandbox-api.marqeta.com/v3")!,
            transport: ScriptedTransport([]), retry: .none)
        return try MarqetaProvider(
            http: http, applicationToken: Secret(Seed.applicationToken), accessToken: Secret(Seed.accessToken),
            options: MarqetaFixture.options,
            authorizationUsername: credentials ? Secret(Seed.authorizationUsername) : nil,
            authorizationPassword: credentials ? Secret(Seed.authorizationPassword) : nil)
    }

    static func delivery(_ body: Data, authorization: String? = basic) -> WebhookDelivery {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        if let authorization { fields[.authorization] = authorization }
        return WebhookDelivery(headers: fields, body: body)
    }

    /// Marqeta's `GET /transactions/{token}` example (CoreAPI 3.0.39): a transaction whose `gpa_order.jit_funding`
    /// asked the program gateway funding source for 10.00 USD.
    static func published() throws -> Data {
        try Data(contentsOf: PublishedShape.fixtureURL("get-transactions-token.response-200.json"))
    }

    static func object(_ data: Data) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    static func jit(_ answer: AuthorizationAnswer) -> [String: Any] {
        object(answer.body)["jit_funding"] as? [String: Any] ?? [:]
    }

    /// The published example with `edit` applied to its JSON object.
    static func edited(_ edit: (inout [String: Any]) -> Void) throws -> Data {
        var message = object(try published())
        edit(&message)
        return try JSONSerialization.data(withJSONObject: message)
    }

    // MARK: Reading

    @Test("Marqeta's published transaction example is read into the normalised request")
    func publishedExample() throws {
        let read = try Self.provider().authorization(from: Self.delivery(try Self.published()), now: Date())
        let request = read.request
        #expect(request.id == "06a8fe88-58b1-4682-a8ad-96eb973e1d74")
        #expect(request.providerKind == .marqeta && request.kind == .authorization)
        #expect(
            request.card
                == CardRef(id: "02cc766c-24a5-4c3b-adcf-0e5e27b09329", customer: "99f323d4-298f-4b0c-93b1-19b2d9921eb8")
        )
        #expect(request.amount == Money(minorUnits: 1_000, currency: "USD"))
        #expect(!request.amountAdjustable, "the example's pos.partial_approval_capable is false")
        #expect(request.merchant.country == "US", "USA, alpha-3 in the example, is US")
        #expect(request.merchant.categoryCode == "6411" && request.merchant.name == "Aegis Fleet Services")
        #expect(request.merchant.city == "Berkeley" && request.merchant.networkID == "000000000011111")
        #expect(request.entryMode == "MAG_STRIPE" && request.networkRiskScore == 97)
        #expect(read.echo[MarqetaJIT.Echo.token] == "251bdc52-588a-4291-8c5d-6ded3a67e1a8")
        #expect(read.echo[MarqetaJIT.Echo.method] == "pgfs.authorization")
        #expect(read.echo[MarqetaJIT.Echo.userToken] == "99f323d4-298f-4b0c-93b1-19b2d9921eb8")
    }

    @Test("alpha-2 countries, string amounts, exponents, partial approval and the kinds of each method")
    func variants() throws {
        let provider = try Self.provider()
        func read(_ edit: (inout [String: Any]) -> Void) throws -> AuthorizationRequest {
            try provider.authorization(from: Self.delivery(try Self.edited(edit)), now: Date()).request
        }
        func setJIT(_ message: inout [String: Any], _ key: String, _ value: Any) {
            var order = message["gpa_order"] as! [String: Any]
            var jit = order["jit_funding"] as! [String: Any]
            jit[key] = value
            order["jit_funding"] = jit
            message["gpa_order"] = order
        }
        let alpha2 = try read { message in
            var acceptor = message["card_acceptor"] as! [String: Any]
            acceptor["country_code"] = "de"
            message["card_acceptor"] = acceptor
        }
        #expect(alpha2.merchant.country == "DE")
        let unknownCountry = try read { message in
            var acceptor = message["card_acceptor"] as! [String: Any]
            acceptor["country_code"] = "XYZ"
            message["card_acceptor"] = acceptor
        }
        #expect(unknownCountry.merchant.country == nil)
        #expect(try read { setJIT(&$0, "amount", "12.34") }.amount.minorUnits == 1_234)
        let yen = try read {
            $0["currency_code"] = "JPY"
            setJIT(&$0, "amount", 1500)
        }
        #expect(yen.amount == Money(minorUnits: 1_500, currency: "JPY"))
        let dinar = try read {
            $0["currency_code"] = "KWD"
            setJIT(&$0, "amount", 1.234)
        }
        #expect(dinar.amount == Money(minorUnits: 1_234, currency: "KWD"))
        let partial = try read { message in
            var pos = message["pos"] as! [String: Any]
            pos["partial_approval_capable"] = true
            message["pos"] = pos
        }
        #expect(partial.amountAdjustable)
        let kinds: [(String, AuthorizationRequest.Kind)] = [
            ("pgfs.authorization.incremental", .incremental), ("pgfs.balanceinquiry", .balanceInquiry),
            ("pgfs.pindebit.balanceinquiry", .balanceInquiry), ("pgfs.authorization.clearing", .informative),
            ("pgfs.authorization.reversal", .informative), ("pgfs.pindebit.atm.withdrawal", .authorization),
        ]
        for (method, kind) in kinds {
            #expect(try read { setJIT(&$0, "method", method) }.kind == kind, "\(method)")
        }
        // A balance inquiry may ask for 0; a purchase may not.
        #expect(
            try read {
                setJIT(&$0, "method", "pgfs.balanceinquiry")
                setJIT(&$0, "amount", 0)
            }.amount.minorUnits == 0)
        for (edit, what) in [
            ({ setJIT(&$0, "amount", 0) } as (inout [String: Any]) -> Void, "a zero purchase"),
            ({ setJIT(&$0, "amount", 10.001) }, "more decimals than USD has"),
            ({ setJIT(&$0, "method", "pgfs.something.new") }, "a method Marqeta does not list"),
            ({ $0["gpa_order"] = nil }, "no gpa_order"),
            ({ $0["currency_code"] = "dollars" }, "no ISO currency"),
            ({ $0["token"] = nil }, "no transaction token"),
        ] {
            #expect(throws: CardGatewayError.self, "\(what)") { _ = try read(edit) }
            do { _ = try read(edit) } catch let error as CardGatewayError {
                #expect(error.code == .invalidRequest, "\(what): \(error.code)")
            }
        }
    }

    @Test("wrong, missing or unconfigured Basic credentials are refused before the body is read")
    func credentials() throws {
        let provider = try Self.provider()
        let body = try Self.published()
        for header in [
            nil, "Basic " + Data("\(Seed.authorizationUsername):wrong-password".utf8).base64EncodedString(),
            "Basic " + Data("\(Seed.webhookUsername):\(Seed.webhookPassword)".utf8).base64EncodedString(),
            "basic " + Self.basic.dropFirst(6), "Bearer " + Self.basic.dropFirst(6),
        ] {
            do {
                _ = try provider.authorization(from: Self.delivery(body, authorization: header), now: Date())
                Issue.record("accepted \(header ?? "no header")")
            } catch let error as CardGatewayError {
                #expect(error.code == .signatureInvalid)
                #expect(!error.message.contains(Seed.authorizationPassword))
            }
        }
        // Authentic credentials on a body that is not a JIT Funding message: invalidRequest, after authentication.
        do {
            _ = try provider.authorization(from: Self.delivery(Data("{}".utf8)), now: Date())
            Issue.record("accepted an empty object")
        } catch let error as CardGatewayError {
            #expect(error.code == .invalidRequest)
        }
        do {
            _ = try Self.provider(credentials: false).authorization(from: Self.delivery(body), now: Date())
            Issue.record("accepted without configured credentials")
        } catch let error as CardGatewayError {
            #expect(error.code == .invalidConfiguration && error.message.contains("authorizationUsername"))
        }
        let http = try ProviderHTTPClient(
            instance: "half", kind: .marqeta, baseURL: URL(string: "https://sandbox-api.marqeta.com/v3")!,
            transport: ScriptedTransport([]), retry: .none)
        #expect(throws: CardGatewayError.self) {
            _ = try MarqetaProvider(
                http: http, applicationToken: Secret(Seed.applicationToken), accessToken: Secret(Seed.accessToken),
                options: MarqetaFixture.options, authorizationUsername: Secret("only-a-username"))
        }
    }

    // MARK: Answers

    @Test("approval, partial approval and balance: HTTP 200 with jit_funding repeating the request's tokens")
    func approvals() throws {
        let provider = try Self.provider()
        let read = try provider.authorization(from: Self.delivery(try Self.published()), now: Date())
        let approval = try provider.answer(.approve(), to: read)
        #expect(approval.status.code == 200 && approval.headers[.contentType] == "application/json")
        #expect(Array(Self.object(approval.body).keys) == ["jit_funding"])
        let jit = Self.jit(approval)
        #expect(jit["token"] as? String == "251bdc52-588a-4291-8c5d-6ded3a67e1a8")
        #expect(jit["method"] as? String == "pgfs.authorization")
        #expect(jit["user_token"] as? String == "99f323d4-298f-4b0c-93b1-19b2d9921eb8")
        #expect(jit["acting_user_token"] as? String == "99f323d4-298f-4b0c-93b1-19b2d9921eb8")
        #expect(String(decoding: approval.body, as: UTF8.self).contains(#""amount":10.00"#))
        #expect(jit["decline_reason"] == nil && jit["memo"] == nil)

        let partialRead = try provider.authorization(
            from: Self.delivery(
                try Self.edited { message in
                    var pos = message["pos"] as! [String: Any]
                    pos["partial_approval_capable"] = true
                    message["pos"] = pos
                }), now: Date())
        let partial = try provider.answer(.approve(amount: Money(minorUnits: 450, currency: "USD")), to: partialRead)
        #expect(partial.status.code == 200)
        #expect(String(decoding: partial.body, as: UTF8.self).contains(#""amount":4.50"#))

        let inquiry = try provider.authorization(
            from: Self.delivery(
                try Self.edited { message in
                    var order = message["gpa_order"] as! [String: Any]
                    var jit = order["jit_funding"] as! [String: Any]
                    jit["method"] = "pgfs.balanceinquiry"
                    order["jit_funding"] = jit
                    message["gpa_order"] = order
                }), now: Date(timeIntervalSince1970: 1_767_225_600))
        let balance = try provider.answer(
            .approve(balance: Money(minorUnits: 123_456, currency: "USD")), to: inquiry)
        let balances = Self.jit(balance)["balances"] as? [String: Any]
        let usd = balances?["USD"] as? [String: Any]
        #expect(String(decoding: balance.body, as: UTF8.self).contains(#""available_balance":1234.56"#))
        #expect(
            usd?["currency_code"] as? String == "USD" && usd?["last_updated_time"] as? String == "2026-01-01T00:00:00Z")
    }

    @Test("every decline reason: HTTP 402, Marqeta's decline_reason from the one table, the gateway's reason in memo")
    func declines() throws {
        let provider = try Self.provider()
        let read = try provider.authorization(from: Self.delivery(try Self.published()), now: Date())
        let expected: [AuthorizationDeclineReason: String] = [
            .insufficientFunds: "INSUFFICIENT_FUNDS", .merchantCategoryBlocked: "TRANSACTION_NOT_PERMITTED",
            .merchantCountryBlocked: "TRANSACTION_NOT_PERMITTED", .amountLimitExceeded: "AMOUNT_LIMIT_EXCEEDED",
            .cardInactive: "CARD_NOT_ACTIVE", .suspectedFraud: "SUSPECTED_FRAUD", .other: "TRANSACTION_NOT_PERMITTED",
        ]
        #expect(Set(expected.keys) == Set(AuthorizationDeclineReason.allCases))
        for reason in AuthorizationDeclineReason.allCases {
            let answer = try provider.answer(.decline(reason), to: read)
            let jit = Self.jit(answer)
            #expect(answer.status.code == 402, "\(reason)")
            #expect(jit["decline_reason"] as? String == expected[reason], "\(reason)")
            #expect(MarqetaSimulator.declineReasons.contains(expected[reason] ?? ""))
            #expect(jit["memo"] as? String == "declined: \(reason.rawValue)")
            #expect(jit["token"] as? String == "251bdc52-588a-4291-8c5d-6ded3a67e1a8")
            #expect(String(decoding: answer.body, as: UTF8.self).contains(#""amount":10.00"#))
        }
    }

    // MARK: The simulator reads Marqeta's published answer

    @Test("the simulator reads Marqeta's published JIT Funding response as an approval, and refuses what Marqeta would")
    func simulatorReadsPublishedAnswer() throws {
        let published = try Data(
            contentsOf: PublishedShape.fixtureURL("jit-funding-response-approval.support-article.json"))
        let simulator = MarqetaSimulator()
        let message = MarqetaSimulator.JITFundingMessage(
            transactionToken: "txn-published", jitToken: "b0a889ec-d7e2-4744-bc09-aa86b0738500",
            method: "pgfs.authorization", userToken: "0146434d-3c22-4906-a538-b61d39cf6f71", amount: 100,
            currency: "USD", partialApprovalCapable: false, headers: [], body: Data())
        func record(_ status: Int, _ body: Data) -> [String: Any] {
            simulator.recordJITOutcome(
                message, outcome: .answered(status: status, headers: [:], body: body), elapsed: .milliseconds(12))
        }
        let approved = record(200, published)
        #expect(approved["state"] as? String == "PENDING")
        let log = approved["gateway_log"] as? [String: Any]
        #expect(log?["timed_out"] as? Bool == false && log?["duration"] as? Int == 12)
        #expect((log?["response"] as? [String: Any])?["code"] as? String == "200")
        #expect(log?["order_number"] as? String == "txn-published")
        #expect(log?["transaction_id"] as? String == "b0a889ec-d7e2-4744-bc09-aa86b0738500")
        // The same body under 402 is a denial; a smaller amount without a partial approval offered, another token,
        // or a 500 are not funded.
        #expect(record(402, published)["state"] as? String == "DECLINED")
        let smaller = Data(
            String(decoding: published, as: UTF8.self).replacingOccurrences(of: "\"1.00\"", with: "\"0.50\"").utf8)
        #expect(record(200, smaller)["state"] as? String == "DECLINED")
        let otherToken = Data(
            String(decoding: published, as: UTF8.self).replacingOccurrences(of: "b0a889ec", with: "c0a889ec").utf8)
        #expect(record(200, otherToken)["state"] as? String == "DECLINED")
        #expect(record(500, published)["state"] as? String == "DECLINED")
        let late = simulator.recordJITOutcome(message, outcome: .timedOut, elapsed: .seconds(3))
        #expect((late["gateway_log"] as? [String: Any])?["timed_out"] as? Bool == true)
        #expect((late["gateway_log"] as? [String: Any])?["response"] == nil && late["state"] as? String == "DECLINED")
    }

    @Test("the simulator's message is read back by the adapter: alpha-3 country, decimal amount, Basic credentials")
    func simulatorMessageRoundTrip() throws {
        let simulator = MarqetaSimulator()
        let order = AuthorizationOrder(
            url: "http://127.0.0.1:1/unused", card: Seed.activeCard, amount: 1_999, currency: "GBP",
            merchant: .init(name: "Corner Shop", categoryCode: "5411", country: "GB", city: "Leeds"),
            amountAdjustable: true)
        let message = try #require(simulator.jitFundingRequest(order))
        let body = Self.object(message.body)
        #expect((body["card_acceptor"] as? [String: Any])?["country_code"] as? String == "GBR")
        #expect(String(decoding: message.body, as: UTF8.self).contains(#""amount":19.99"#))
        #expect(message.headers.contains { $0.0 == "Authorization" && $0.1 == Self.basic })
        var fields = HTTPFields()
        for (name, value) in message.headers { fields[HTTPField.Name(name)!] = value }
        let read = try Self.provider().authorization(
            from: WebhookDelivery(headers: fields, body: message.body), now: Date())
        #expect(read.request.id == message.transactionToken && read.request.card.id == Seed.activeCard)
        #expect(read.request.amount == Money(minorUnits: 1_999, currency: "GBP") && read.request.amountAdjustable)
        #expect(read.request.merchant == .init(name: "Corner Shop", categoryCode: "5411", country: "GB", city: "Leeds"))
        #expect(
            simulator.jitFundingRequest(
                AuthorizationOrder(
                    url: order.url, card: "card_sim_missing_9999", amount: 1, currency: "USD", merchant: .init()))
                == nil)
    }

    // MARK: End to end

    /// A Marqeta instance answering at `/authorizations/mq` with one local rule (MCC 7995) and a budget of 5 s, set
    /// after loading (the configuration keeps a budget below Marqeta's default 3 s): long enough that a loaded machine
    /// cannot make the decider late; the stand-in's exact timing is AuthorizationTests', on an injected clock.
    static func gateway() throws -> CardGateway {
        let json = #"""
            {"providers": {"mq": {"kind": "marqeta", "environment": "sandbox",
               "credentials": {"applicationToken": "literal:\#(Seed.applicationToken)",
                               "accessToken": "literal:\#(Seed.accessToken)",
                               "authorizationUsername": "literal:\#(Seed.authorizationUsername)",
                               "authorizationPassword": "literal:\#(Seed.authorizationPassword)"},
               "authorizations": {"budgetMilliseconds": 200}}},
             "routes": [],
             "authorizationRules": [{"name": "no gambling", "merchantCategories": ["7995"], "reason": "merchantCategoryBlocked"}]}
            """#
        let registry = ProviderRegistry([.marqeta])
        var configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
        configuration.providers["mq"]?.authorizations.budget = .seconds(5)
        return try CardGateway(configuration: configuration, registry: registry, transport: ScriptedTransport([]))
    }

    @Test("end to end: approved, declined by a rule, a reduced amount, a stand-in before Marqeta's deadline, a timeout")
    func endToEnd() async throws {
        let gateway = try Self.gateway()
        // One stream per waiter: the slow decider's and the silent endpoint's, both released when the test ends.
        let (held, release) = AsyncStream.makeStream(of: Void.self)
        let (silent, releaseSilent) = AsyncStream.makeStream(of: Void.self)
        let decider = ClosureAuthorizationDecider { request in
            switch request.merchant.name {
            case "Half Price":
                return .approve(
                    amount: Money(minorUnits: request.amount.minorUnits / 2, currency: request.amount.currency))
            case "Slow Decider":
                for await _ in held {}
                return .approve()
            default:
                return .approve()
            }
        }
        let router = Router()
        router.post("/authorizations/mq") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            do {
                let outcome = try await gateway.respondToAuthorization(
                    WebhookDelivery(headers: request.headers, body: Data(buffer: body)), instance: "mq",
                    decider: decider)
                return Response(
                    status: .init(code: outcome.answer.status.code), headers: outcome.answer.headers,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: outcome.answer.body)))
            } catch let error as CardGatewayError where error.code == .signatureInvalid {
                return Response(status: .unauthorized)
            }
        }
        router.post("/never") { _, _ -> Response in
            for await _ in silent {}
            return Response(status: .ok)
        }
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in Ports.shared.set(channel.localAddress?.port ?? 0) },
            logger: OperationContext.noopLogger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer {
            release.finish()
            releaseSilent.finish()
            server.cancel()
        }
        let port = try await Ports.shared.next()
        let simulator = MarqetaSimulator()
        func order(
            _ name: String, mcc: String = "5411", amount: Int64 = 4_000, adjustable: Bool? = nil,
            deadline: Int? = 7_000,
            path: String = "/authorizations/mq"
        ) -> AuthorizationOrder {
            AuthorizationOrder(
                url: "http://127.0.0.1:\(port)\(path)", card: Seed.activeCard, amount: amount, currency: "USD",
                merchant: .init(name: name, categoryCode: mcc, country: "US", city: "Seattle"),
                amountAdjustable: adjustable, deadlineMilliseconds: deadline)
        }
        func play(_ order: AuthorizationOrder) async throws -> [String: Any] {
            let answer = try #require(await simulator.authorize(order))
            #expect(answer.status == 200)
            return Self.object(answer.body)
        }
        func log(_ record: [String: Any]) -> [String: Any] { record["gateway_log"] as? [String: Any] ?? [:] }
        func code(_ record: [String: Any]) -> String? {
            (log(record)["response"] as? [String: Any])?["code"] as? String
        }

        let approved = try await play(order("Corner Shop"))
        #expect(approved["state"] as? String == "PENDING" && approved["approved_amount"] as? Double == 40)
        #expect(code(approved) == "200" && log(approved)["timed_out"] as? Bool == false)

        let ruled = try await play(order("Lucky Casino", mcc: "7995"))
        #expect(ruled["state"] as? String == "DECLINED" && code(ruled) == "402")
        #expect(ruled["decline_reason"] as? String == "TRANSACTION_NOT_PERMITTED")

        let reduced = try await play(order("Half Price", adjustable: true))
        #expect(reduced["state"] as? String == "PENDING" && reduced["approved_amount"] as? Double == 20)
        // Without a partial approval offered, the decider's smaller amount cannot answer: the stand-in declines.
        let notReducible = try await play(order("Half Price", adjustable: false))
        #expect(notReducible["state"] as? String == "DECLINED" && code(notReducible) == "402")

        let standIn = try await play(order("Slow Decider"))
        #expect(standIn["state"] as? String == "DECLINED" && code(standIn) == "402")
        #expect(log(standIn)["timed_out"] as? Bool == false, "the stand-in reached Marqeta before its deadline")
        #expect((log(standIn)["duration"] as? Int ?? 0) >= 5_000, "not before the budget")

        let timedOut = try await play(order("Nobody Home", deadline: 300, path: "/never"))
        #expect(timedOut["state"] as? String == "DECLINED" && log(timedOut)["timed_out"] as? Bool == true)
        #expect(log(timedOut)["response"] == nil)

        let wrongCard = try #require(
            await simulator.authorize(
                AuthorizationOrder(
                    url: "http://127.0.0.1:\(port)/authorizations/mq", card: "card_sim_missing_9999", amount: 100,
                    currency: "USD", merchant: .init())))
        #expect(wrongCard.status == 404 && Self.object(wrongCard.body)["error_code"] != nil)
        let tooLong = try #require(await simulator.authorize(order("Corner Shop", deadline: 7_001)))
        #expect(tooLong.status == 400)

        // The same through the simulator's control path, as the demo and the CLI drive it.
        try await withSimulator(simulator) { handle in
            var control = HTTPClientRequest(url: handle.rootURL.absoluteString + SimulatorControlPath.authorizations)
            control.method = .POST
            control.headers.add(name: "Content-Type", value: "application/json")
            control.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(order("Corner Shop", amount: 1_234))))
            let response = try await HTTPClient.shared.execute(control, timeout: .seconds(10))
            let record = Self.object(Data(buffer: try await response.body.collect(upTo: 1 << 20)))
            #expect(response.status.code == 200 && record["state"] as? String == "PENDING")
            #expect(record["approved_amount"] as? Double == 12.34 && code(record) == "200")
            let token = try #require(record["token"] as? String)
            #expect(simulator.jitOutcome(token) != nil)
        }
    }
}

/// The port the test's server reports once it listens.
final class Ports: Sendable {
    static let shared = Ports()
    private let stream: AsyncStream<Int>
    private let continuation: AsyncStream<Int>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream(of: Int.self) }

    func set(_ port: Int) { continuation.yield(port) }

    func next() async throws -> Int {
        var iterator = stream.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return port
    }
}
