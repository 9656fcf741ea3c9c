@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import Foundation
import HTTPTypes
import MarqetaSimulator
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayMarqeta

/// The adapter's requests and the simulator's answers, on the wire, validated against Marqeta's Swagger 2.0 document
/// (`Tests/MarqetaTests/Fixtures/marqeta-core-api-swagger-2024-01-19.json`) by `scripts/spec-conformance.py` with the
/// `jsonschema` package: every operation the adapter uses (`Providers/Marqeta/Adapter/MarqetaAPI.swift`), its
/// success and error answers (the document declares no error bodies: those are checked against Marqeta's documented
/// `{error_code, error_message}`). Objects are closed (no member the document does not define). The document defines
/// no schema for a webhook's outer object, so each object in the arrays the simulator's webhooks carry is checked
/// against the schema of its category's resource: `card_transition_response`, `digital_wallet_token_transition_response`.
@Suite("Marqeta adapter and simulator against Marqeta's Swagger document", .timeLimit(.minutes(5)))
struct MarqetaSpecConformanceTests {
    static func run(_ exchanges: [SpecExchange] = []) -> SpecConformanceRun {
        SpecConformanceRun(
            provider: "marqeta",
            documents: ["swagger": PublishedShape.fixtureURL("marqeta-core-api-swagger-2024-01-19.json").path],
            basePath: "/v3", exchanges: exchanges
        )
    }

    /// Every operation the adapter sends, with the statuses driven below (`METHOD /template STATUS`).
    static let operations: Set<String> = [
        "GET /cards/{token} 200",
        "POST /cards 201",
        "GET /cards/user/{token} 200",
        "POST /cardtransitions 201",
        "POST /digitalwalletprovisionrequests/applepay 201",
        "POST /digitalwalletprovisionrequests/androidpay 201",
        "POST /digitalwalletprovisionrequests/samsungpay 201",
        "GET /digitalwallettokens/card/{card_token} 200",
        "POST /digitalwallettokentransitions 201",
        "POST /users/auth/clientaccesstoken 201",
        // Errors (the document declares no body for them: Marqeta's documented error shape).
        "GET /cards/{token} 401",
        "GET /cards/{token} 404",
        "GET /cards/{token} 500",
        "POST /cards 400",
        "POST /digitalwalletprovisionrequests/applepay 400",
        "POST /users/auth/clientaccesstoken 400",
    ]

    static func provider(
        _ handle: SimulatorHandle, transport: any HTTPTransport, accessToken: String = Seed.accessToken
    ) throws -> MarqetaProvider {
        let http = try ProviderHTTPClient(
            instance: "marqeta-spec", kind: .marqeta, baseURL: handle.baseURL, transport: transport,
            timeout: .seconds(30), retry: .none)
        return try MarqetaProvider(
            http: http, applicationToken: Secret(Seed.applicationToken), accessToken: Secret(accessToken),
            options: MarqetaFixture.options,
            webhookUsername: Secret(Seed.webhookUsername), webhookPassword: Secret(Seed.webhookPassword),
            webhookSecret: Secret(Seed.webhookSecret)
        )
    }

    /// Drives every operation through the adapter; every request is the adapter's, so every one is checked.
    static func exchanges() async throws -> [SpecExchange] {
        let simulator = MarqetaSimulator()
        return try await withSimulator(simulator) { handle in
            let wire = WireRecorder(AsyncHTTPClientTransport())
            let marqeta = try provider(handle, transport: wire)
            let context = OperationContext()

            // Cards: every seeded one, the listing (every page), issuance, lock / unlock / cancel.
            for card in [
                Seed.activeCard, Seed.lockableCard, Seed.suspendedCard, Seed.unactivatedCard, Seed.terminatedCard,
                Seed.walletCard,
            ] {
                _ = try await marqeta.card(CardRef(id: card), context: context)
            }
            var query: CardQuery? = CardQuery(customer: Seed.userToken, limit: 2)
            while let current = query {
                let page = try await marqeta.listCards(current, context: context)
                query = current.next(after: page)
            }
            _ = try await marqeta.listCards(CardQuery(customer: Seed.emptyUserToken), context: context)
            _ = try await marqeta.createCard(
                CreateCardRequest(
                    customer: Seed.emptyUserToken, type: .virtual, program: Seed.virtualProduct, currency: "USD"),
                context: context)
            _ = try await marqeta.changeStatus(
                CardStatusRequest(
                    card: CardRef(id: Seed.lockableCard), intent: .lock, reason: .lost, comment: "lost on a train"),
                context: context)
            _ = try await marqeta.changeStatus(
                CardStatusRequest(card: CardRef(id: Seed.lockableCard), intent: .unlock), context: context)
            _ = try await marqeta.changeStatus(
                CardStatusRequest(card: CardRef(id: Seed.cancellableCard), intent: .cancel, reason: .stolen),
                context: context)

            // Wallet tokens: listing, suspend / resume / delete.
            let wallet = CardRef(id: Seed.walletCard)
            _ = try await marqeta.walletTokens(of: wallet, context: context)
            _ = try await marqeta.walletTokens(of: CardRef(id: Seed.activeCard), context: context)
            _ = try await marqeta.changeWalletToken(
                WalletTokenRequest(card: wallet, token: Seed.activeToken, intent: .suspend, reason: .suspectedFraud),
                context: context)
            _ = try await marqeta.changeWalletToken(
                WalletTokenRequest(card: wallet, token: Seed.activeToken, intent: .resume), context: context)
            _ = try await marqeta.changeWalletToken(
                WalletTokenRequest(card: wallet, token: Seed.deletableToken, intent: .delete), context: context)

            // Provisioning: the offer, then Apple, Google and Samsung.
            let card = CardRef(id: Seed.activeCard)
            _ = try await marqeta.offer(for: card, wallet: .applePay, context: context)
            let apple = ApplePayProvisioningInput(
                certificates: [Inputs.leafCertificate, Inputs.subordinateCertificate], nonce: Inputs.nonce,
                nonceSignature: Inputs.nonceSignature)
            _ = try await marqeta.provision(
                ProvisioningRequest(card: card, wallet: .applePay, input: .applePay(apple)), context: context)
            _ = try await marqeta.provision(
                ProvisioningRequest(
                    card: card, wallet: .googlePay,
                    input: .googlePay(
                        GooglePayProvisioningInput(
                            clientDeviceID: Inputs.googleDeviceID, clientWalletAccountID: Inputs.googleWalletAccountID))
                ),
                context: context
            )
            _ = try await marqeta.provision(
                ProvisioningRequest(
                    card: card, wallet: .samsungPay,
                    input: .samsungPay(
                        SamsungPayProvisioningInput(
                            deviceID: Inputs.samsungDeviceID, walletUserID: Inputs.samsungWalletUserID))),
                context: context
            )

            // Card details by Marqeta.js: the offer (a card read), a client access token, one for a card Marqeta does
            // not know (refused at the card read, before the token request), and Marqeta refusing the token request
            // (a 400 in its error shape: the session reads the card first, so the simulator is made to refuse).
            _ = try await marqeta.revealOffer(for: card, purpose: .cardDetails, context: context)
            _ = try await marqeta.revealSession(
                RevealSessionRequest(card: card, purpose: .cardDetails), context: context)
            _ = try? await marqeta.revealSession(
                RevealSessionRequest(card: CardRef(id: "card_sim_unknown_9999"), purpose: .cardDetails),
                context: context)
            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v3/users/auth/clientaccesstoken", method: "POST",
                    action: .status(400, retryAfterSeconds: nil, message: "Card not found")))
            _ = try? await marqeta.revealSession(
                RevealSessionRequest(card: card, purpose: .cardDetails), context: context)

            // Errors the adapter meets: an unknown card, an unknown card product, a card that cannot be provisioned,
            // wrong credentials, a fault.
            _ = try? await marqeta.card(CardRef(id: "card_sim_unknown_9999"), context: context)
            _ = try? await marqeta.createCard(
                CreateCardRequest(
                    customer: Seed.userToken, type: .virtual, program: "cp_sim_unknown_9999", currency: "USD"),
                context: context)
            _ = try? await marqeta.provision(
                ProvisioningRequest(card: CardRef(id: Seed.suspendedCard), wallet: .applePay, input: .applePay(apple)),
                context: context)
            _ = try? await provider(handle, transport: wire, accessToken: "wrong-access-token").card(
                card, context: context)
            handle.faults.inject(FaultRule(count: 1, action: .status(500, retryAfterSeconds: nil, message: "boom")))
            _ = try? await marqeta.card(card, context: context)

            return wire.exchanges.enumerated().compactMap { index, exchange in
                exchange.status == nil
                    ? nil
                    : SpecExchange(
                        "adapter #\(index + 1) \(exchange.method) \(exchange.path)", document: "swagger", exchange,
                        adapter: true)
            }
        }
    }

    @Test func everyRequestAndAnswerFollowsTheDocument() async throws {
        try await SpecConformance.requireValidator()
        let exchanges = try await Self.exchanges()
        let report = try await SpecConformance.check(Self.run(exchanges))
        SpecConformance.expectConformance(report, covering: Self.operations)
        #expect((report.requestBodies ?? 0) >= 8, "request bodies validated: \(report.requestBodies ?? 0)")
    }

    /// Each object of each array in a webhook body, checked against `schema`.
    static func webhookObjects(_ name: String, _ body: Data, key: String, schema: String) throws -> [SpecExchange] {
        let object = try #require(try JSONValue.parse(body).objectValue)
        #expect(Array(object.keys) == [key], "\(name): the body's categories")
        let events = try #require(object[key]?.arrayValue)
        #expect(!events.isEmpty)
        return try events.enumerated().map { index, event in
            SpecExchange(
                "\(name) \(key)[\(index)]", document: "swagger", schema: schema, body: try JSONEncoder().encode(event))
        }
    }

    @Test("every webhook the simulator sends: each object of its arrays follows the document's resource schema")
    func webhooksFollowTheDocument() async throws {
        try await SpecConformance.requireValidator()
        let simulator = MarqetaSimulator()
        var exchanges: [SpecExchange] = []
        for (card, state, type) in [
            (Seed.lockableCard, "SUSPENDED", "state.suspended"), (Seed.suspendedCard, "ACTIVE", "state.reinstated"),
            (Seed.cancellableCard, "TERMINATED", "state.terminated"),
            (Seed.unactivatedCard, "ACTIVE", "state.activated"),
        ] {
            let signed = simulator.signedCardTransitionWebhook(card: card, state: state, type: type)
            exchanges += try Self.webhookObjects(
                "card \(card) \(state)", signed.body, key: "cards", schema: "card_transition_response")
        }
        for (token, state, type) in [
            (Seed.activeToken, "SUSPENDED", "state.suspended"), (Seed.suspendedToken, "ACTIVE", "state.reinstated"),
            (Seed.deletableToken, "TERMINATED", "state.terminated"), (Seed.activeToken, "REQUESTED", "state.requested"),
        ] {
            let signed = simulator.signedTokenTransitionWebhook(token: token, state: state, type: type)
            exchanges += try Self.webhookObjects(
                "token \(token) \(state)", signed.body, key: "digitalwallettokentransitions",
                schema: "digital_wallet_token_transition_response")
        }
        var run = Self.run(exchanges)
        run.partial = true
        let report = try await SpecConformance.check(run)
        #expect(report.findings == [], "\(report.findings.joined(separator: "\n"))")
        #expect(report.covered.contains("SCHEMA card_transition_response"), "\(report.covered)")
        #expect(report.covered.contains("SCHEMA digital_wallet_token_transition_response"), "\(report.covered)")
    }

    /// The schemas of Marqeta's newer Core API (3.0.39) that Gateway JIT Funding uses, extracted with every schema
    /// they reach (`Fixtures/marqeta-core-api-3.0.39-jit-subset.json`; Fixtures/README.md says how).
    static func jitRun(_ exchanges: [SpecExchange]) -> SpecConformanceRun {
        var run = SpecConformanceRun(
            provider: "marqeta",
            documents: ["coreapi": PublishedShape.fixtureURL("marqeta-core-api-3.0.39-jit-subset.json").path],
            basePath: "/v3", exchanges: exchanges)
        run.partial = true
        return run
    }

    @Test(
        "Gateway JIT Funding: the simulator's requests, the adapter's answers and the recorded gateway_log follow the document"
    )
    func jitFundingFollowsTheDocument() async throws {
        try await SpecConformance.requireValidator()
        let simulator = MarqetaSimulator()
        let adapter = try MarqetaAuthorizationTests.provider()
        var exchanges: [SpecExchange] = []
        for (kind, adjustable, country) in [
            ("authorization", true, "GB"), ("incremental", false, "US"), ("balanceInquiry", false, "JP"),
            ("informative", false, "FR"),
        ] {
            let order = AuthorizationOrder(
                url: "http://127.0.0.1:1/unused", card: Seed.activeCard, amount: 1_250,
                currency: country == "JP" ? "JPY" : "USD",
                merchant: .init(name: "Spec Shop", categoryCode: "5999", country: country, city: "Springfield"),
                kind: kind, amountAdjustable: adjustable)
            let message = try #require(simulator.jitFundingRequest(order))
            exchanges.append(
                SpecExchange(
                    "JIT Funding request (\(kind))", document: "coreapi", schema: "transaction_model",
                    body: message.body))
            var fields = HTTPFields()
            for (name, value) in message.headers { fields[HTTPField.Name(name)!] = value }
            let read = try adapter.authorization(
                from: WebhookDelivery(headers: fields, body: message.body), now: Date())
            var decisions: [(String, AuthorizationDecision)] = [("approve", .approve())]
            if kind == "authorization" {
                decisions.append(("partial", .approve(amount: Money(minorUnits: 600, currency: "USD"))))
                decisions += AuthorizationDeclineReason.allCases.map { ("decline \($0)", .decline($0)) }
            }
            if kind == "balanceInquiry" {
                decisions.append(("balance", .approve(balance: Money(minorUnits: 98_765, currency: "JPY"))))
            }
            for (name, decision) in decisions {
                let answer = try adapter.answer(decision, to: read)
                // The answer is the `data` Marqeta records in `gateway_log.response`: a `jit_program_response`.
                exchanges.append(
                    SpecExchange(
                        "JIT Funding answer (\(kind), \(name))", document: "coreapi", schema: "jit_program_response",
                        body: answer.body))
                let record = simulator.recordJITOutcome(
                    message,
                    outcome: .answered(status: Int(answer.status.code), headers: answer.headers, body: answer.body),
                    elapsed: .milliseconds(40))
                exchanges.append(
                    SpecExchange(
                        "gateway_log (\(kind), \(name))", document: "coreapi", schema: "gateway_log_model",
                        body: try JSONSerialization.data(withJSONObject: record["gateway_log"] as Any)))
            }
            let late = simulator.recordJITOutcome(message, outcome: .timedOut, elapsed: .seconds(3))
            exchanges.append(
                SpecExchange(
                    "gateway_log (\(kind), timed out)", document: "coreapi", schema: "gateway_log_model",
                    body: try JSONSerialization.data(withJSONObject: late["gateway_log"] as Any)))
        }
        // Marqeta's transaction example is not checked: it departs from its own document (Fixtures/README.md).
        let report = try await SpecConformance.check(Self.jitRun(exchanges))
        #expect(report.findings == [], "\(report.findings.joined(separator: "\n"))")
        for schema in ["transaction_model", "jit_program_response", "gateway_log_model"] {
            #expect(report.covered.contains("SCHEMA \(schema)"), "\(report.covered)")
        }
    }

    @Test("the JIT Funding check catches a wrong answer: an unknown decline reason, a string timed_out, no token")
    func jitFundingCheckCatchesProblems() async throws {
        try await SpecConformance.requireValidator()
        let report = try await SpecConformance.check(
            Self.jitRun([
                SpecExchange(
                    "reason", document: "coreapi", schema: "jit_program_response",
                    body: Data(
                        #"{"jit_funding":{"token":"t","method":"pgfs.authorization","user_token":"u","amount":1,"decline_reason":"NOPE"}}"#
                            .utf8)),
                SpecExchange(
                    "log", document: "coreapi", schema: "gateway_log_model",
                    body: Data(#"{"message":"m","order_number":"o","transaction_id":"t","timed_out":"no"}"#.utf8)),
                SpecExchange(
                    "token", document: "coreapi", schema: "jit_program_response",
                    body: Data(#"{"jit_funding":{"method":"pgfs.authorization","user_token":"u","amount":1}}"#.utf8)),
            ]))
        for name in ["[reason]", "[log]", "[token]"] {
            #expect(report.findings.contains { $0.hasPrefix(name) }, "\(name): \(report.findings)")
        }
    }

    @Test("the webhook check catches the old shapes: a card transition without its card members, a whole token")
    func webhookCheckCatchesOldShapes() async throws {
        try await SpecConformance.requireValidator()
        let report = try await SpecConformance.check(
            Self.run([
                SpecExchange(
                    "card", document: "swagger", schema: "card_transition_response",
                    body: Data(
                        #"{"token":"ct","card_token":"c","user_token":"u","state":"SUSPENDED","type":"state.suspended","channel":"API","created_time":"2025-01-01T00:00:00Z"}"#
                            .utf8)),
                SpecExchange(
                    "token", document: "swagger", schema: "digital_wallet_token_transition_response",
                    body: Data(
                        #"{"token":"t","state":"ACTIVE","type":"state.activated","channel":"API","fulfillment_status":"PROVISIONED","digital_wallet_token":{"token":"d","card_token":"c","state":"ACTIVE"}}"#
                            .utf8)),
            ]))
        #expect(report.findings.contains { $0.hasPrefix("[card]") && $0.contains("barcode") }, "\(report.findings)")
        #expect(report.findings.contains { $0.hasPrefix("[token]") && $0.contains("state") }, "\(report.findings)")
    }

    @Test func validatorCatchesProblems() async throws {
        try await SpecConformance.requireValidator()
        func exchange(
            _ name: String, _ method: String, _ path: String, _ status: Int, request: String? = nil, response: String
        ) -> SpecExchange {
            SpecExchange(
                name, document: "swagger",
                WireExchange(
                    method: method, path: "/v3" + path, requestBody: request.map { Data($0.utf8) }, status: status,
                    responseBody: Data(response.utf8)), adapter: true)
        }
        let report = try await SpecConformance.check(
            Self.run([
                exchange(
                    "state", "POST", "/cardtransitions", 201,
                    request: #"{"card_token":"c","state":"FROZEN","channel":"API","reason_code":"01"}"#,
                    response:
                        #"{"token":"t","card_token":"c","state":"ACTIVE","type":"state.activated","channel":"API","user_token":"u","created_time":"2025-01-01T00:00:00Z","fulfillment_status":"ISSUED","state_reason":"x"}"#
                ),
                exchange(
                    "error", "GET", "/cards/c", 404, response: #"{"error_code":404,"error_message":"Card not found"}"#),
                exchange(
                    "extra", "GET", "/cards/c", 404,
                    response: #"{"error_code":"404070","error_message":"Card not found","detail":"x"}"#),
                exchange(
                    "status", "POST", "/cards", 200, request: #"{"user_token":"u","card_product_token":"p"}"#,
                    response: "{}"),
                exchange(
                    "query", "GET", "/cards/user/u?count=2&page=3", 200,
                    response: #"{"count":0,"start_index":0,"end_index":0,"is_more":false,"data":[]}"#),
            ]))
        let expected = [
            "[state] request $.state: \"FROZEN\" is not one of the document's values",
            "[error] response 404 (the provider's error shape) $.error_code: is integer where the document says string",
            "[extra] response 404 (the provider's error shape) $: member(s) `detail` not defined by the document",
            "[status] response 200: POST /cards declares no such status",
            "[query] request query `page`: not a parameter of GET /cards/user/{token}",
        ]
        for line in expected {
            #expect(
                report.findings.contains { $0.hasPrefix(line) },
                "missing finding: \(line)\nreported:\n\(report.findings.joined(separator: "\n"))")
        }
    }
}
