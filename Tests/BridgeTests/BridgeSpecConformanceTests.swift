import BridgeSimulator
@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
@_spi(AdapterSupport) import CardGatewayBridge
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import SharedTestSupport
import Testing

/// Bridge's OpenAPI, committed next to these tests (`Tests/BridgeTests/Fixtures/bridge-openapi.json`). A missing
/// document fails the suite: nothing here is skipped.
enum BridgeSpec {
    static let url: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/bridge-openapi.json")

    /// The spec, parsed once per process (it is large; `JSONSerialization` is much faster than decoding).
    static func load() throws -> JSONValue { try cached.get() }

    private static let cached: Result<JSONValue, any Error> = Result {
        convert(try JSONSerialization.jsonObject(with: try Data(contentsOf: url)))
    }

    private static func convert(_ value: Any) -> JSONValue {
        switch value {
        case let text as String: return .string(text)
        case let object as [String: Any]: return .object(object.mapValues(convert))
        case let array as [Any]: return .array(array.map(convert))
        case let number as NSNumber: return .number(number.doubleValue)
        default: return .null
        }
    }
}

/// The adapter's requests and the simulator's answers, on the wire, validated against Bridge's OpenAPI by
/// `scripts/spec-conformance.py` with the `jsonschema` package: every operation the adapter uses
/// (`Providers/Bridge/Adapter/BridgeAPI.swift`), its success and error answers, and the webhook envelope. Objects are
/// closed (no member the document does not define). The places where the document contradicts itself (the freeze
/// `status`, the freeze initiator's enum, the provisioning schemas' undefined required members, the 401 and 500
/// examples) are named, one by one, in the script's `EXCEPTIONS`.
@Suite("Bridge adapter and simulator against Bridge's OpenAPI", .timeLimit(.minutes(5)))
struct BridgeSpecConformanceTests {
    typealias Seed = BridgeSimulator.Seed

    static func run(_ exchanges: [SpecExchange] = []) -> SpecConformanceRun {
        SpecConformanceRun(
            provider: "bridge", documents: ["openapi": BridgeSpec.url.path], basePath: "/v0", exchanges: exchanges)
    }

    static let account = "/customers/{customerID}/card_accounts/{cardAccountID}"

    /// Every operation the adapter sends, with the statuses driven below (`METHOD /template STATUS`).
    static let operations: Set<String> = [
        "GET \(account) 200",
        "GET /customers/{customerID}/card_accounts 200",
        "POST /customers/{customerID}/card_accounts 201",
        "POST \(account)/create_mobile_wallet_provisioning_request 200",
        "POST \(account)/freeze 200",
        "POST \(account)/unfreeze 200",
        "POST \(account)/ephemeral_keys 200",
        "POST \(account)/pin 200",
        "POST \(account)/ephemeral_keys 400",
        "POST \(account)/pin 400",
        // Errors: 401 and 500 (the document's examples), 400, 404, 409 and 422 (undeclared: checked as Error).
        "GET \(account) 401",
        "GET \(account) 404",
        "GET \(account) 500",
        "POST \(account)/create_mobile_wallet_provisioning_request 400",
        "POST \(account)/create_mobile_wallet_provisioning_request 409",
        "POST \(account)/create_mobile_wallet_provisioning_request 422",
        "POST \(account)/freeze 400",
        "POST \(account)/unfreeze 400",
        "POST /customers/{customerID}/card_accounts 400",
        "SCHEMA WebhookEvent",
        "SCHEMA CardAccount",
    ]

    /// Drives every operation through the adapter (its requests are checked too), then the error answers the adapter
    /// never provokes through raw requests (only their answers are checked).
    static func exchanges() async throws -> [SpecExchange] {
        let simulator = BridgeSimulator(clock: SimulationClock(fixed: BridgeLive.start))
        return try await withSimulator(simulator) { handle in
            let wire = WireRecorder(AsyncHTTPClientTransport())
            func provider(
                apiKey: String = Seed.apiKey, encoding: BridgeCertificateEncoding = .base64
            ) throws -> BridgeProvider {
                let http = try ProviderHTTPClient(
                    instance: "bridge-sim", kind: .bridge, baseURL: handle.baseURL, transport: wire,
                    timeout: .seconds(30), retry: .none
                )
                return try BridgeProvider(
                    http: http, apiKey: Secret(apiKey), webhookPublicKey: Secret(simulator.webhookPublicKeyPEM),
                    certificateEncoding: encoding,
                    cardChain: "base"
                )
            }
            let bridge = try provider()
            let context = OperationContext()

            // Card accounts: every seeded one, the listing, issuance.
            for id in [
                Seed.activeVisa, Seed.activeMastercard, Seed.pendingVisa, Seed.inactiveMastercard,
                Seed.frozenByCustomer, Seed.frozenByDeveloper,
            ] {
                _ = try await bridge.card(BridgeLive.ref(id), context: context)
            }
            _ = try await bridge.listCards(CardQuery(customer: Seed.customerID), context: context)
            _ = try await bridge.createCard(
                CreateCardRequest(
                    customer: Seed.customerWithoutCardID, type: .virtual, program: "classic", currency: "usdc",
                    externalID: "kj-1"),
                context: context
            )
            // Freezes: lock and unlock, and the freeze operations with every optional member.
            _ = try await bridge.changeStatus(
                CardStatusRequest(
                    card: BridgeLive.ref(Seed.activeMastercard), intent: .lock, reason: .lost, comment: "card lost"),
                context: context)
            _ = try await bridge.changeStatus(
                CardStatusRequest(card: BridgeLive.ref(Seed.activeMastercard), intent: .unlock), context: context)
            _ = try await bridge.freeze(
                card: BridgeLive.ref(Seed.activeVisa), reason: .plannedInactivity, reasonDetail: "holiday",
                endingAt: BridgeLive.start.addingTimeInterval(86_400),
                context: context
            )
            _ = try await bridge.freeze(
                card: BridgeLive.ref(Seed.activeVisa), reason: .suspectedFraud, context: context)
            _ = try await bridge.card(BridgeLive.ref(Seed.activeVisa), context: context)
            _ = try await bridge.unfreeze(card: BridgeLive.ref(Seed.activeVisa), context: context)
            // Provisioning: Apple (hex and Base64) and Google.
            _ = try await bridge.offer(for: BridgeLive.ref(Seed.activeVisa), wallet: .applePay, context: context)
            _ = try await bridge.provision(BridgeLive.appleRequest(), context: context)
            _ = try await provider(encoding: .hex).provision(
                BridgeLive.appleRequest(nonce: Data([1, 2, 3, 4])), context: context)
            _ = try await bridge.provision(
                ProvisioningRequest(
                    card: BridgeLive.ref(Seed.activeVisa), wallet: .googlePay, input: BridgeFixtures.googleInput),
                context: context)
            // Card details (ephemeral key for the front end's nonce) and PIN change (secure frame URL).
            let nonce = Secret(BridgeSimulator.clientNonce(secret: "conformance-secret", timestamp: 1_767_323_045_000))
            _ = try await bridge.revealSession(
                RevealSessionRequest(card: BridgeLive.ref(Seed.activeVisa), purpose: .cardDetails, clientNonce: nonce),
                context: context)
            _ = try await bridge.revealSession(
                RevealSessionRequest(card: BridgeLive.ref(Seed.activeVisa), purpose: .pinChange), context: context)
            _ = try? await bridge.revealSession(
                RevealSessionRequest(card: BridgeLive.ref(Seed.pendingVisa), purpose: .cardDetails, clientNonce: nonce),
                context: context)
            _ = try? await bridge.revealSession(
                RevealSessionRequest(card: BridgeLive.ref(Seed.inactiveMastercard), purpose: .pinChange),
                context: context)

            // Errors the adapter meets: an unknown account, an account that cannot be provisioned or frozen, a
            // second account for a customer, a wrong key, a fault.
            _ = try? await bridge.card(BridgeLive.ref("ca00000000004000800000000000ffff"), context: context)
            _ = try? await bridge.provision(BridgeLive.appleRequest(Seed.pendingVisa), context: context)
            _ = try? await bridge.freeze(
                card: BridgeLive.ref(Seed.inactiveMastercard), reason: .other, context: context)
            _ = try? await bridge.unfreeze(card: BridgeLive.ref(Seed.activeMastercard), context: context)
            _ = try? await bridge.createCard(
                CreateCardRequest(customer: Seed.customerID, type: .virtual, program: "classic", currency: "usdc"),
                context: context
            )
            _ = try? await provider(apiKey: "sk-test-nope").card(BridgeLive.ref(Seed.activeVisa), context: context)
            handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v0/",
                    action: .status(
                        500, retryAfterSeconds: nil, message: "An expected error occurred, you may try again later")))
            _ = try? await bridge.card(BridgeLive.ref(Seed.activeVisa), context: context)

            // Idempotency refusals need a key reused on purpose (raw HTTP: the answers are checked, not the requests).
            let raw = RawBridge(handle: handle, simulator: simulator)
            var rawReplies: [(String, String, String, RawBridge.Reply, String)] = []
            let path = RawBridge.provisioning(Seed.activeMastercard)
            for (name, body) in [
                ("first", RawBridge.appleBody()), ("409 conflict", RawBridge.appleBody(nonce: Data([7]))),
            ] {
                rawReplies.append(
                    (name, "POST", path, try await raw.send(.post, path, idempotencyKey: "reused", body: body), body))
            }
            // Bridge's 400 for a key or a PIN frame of an account that is not active: the adapter's session step
            // refuses those accounts before asking (as its offer does), so the answers are provoked here.
            let keyBody = #"{"client_nonce":"\#(nonce.revealedValue)"}"#
            for (name, path, body) in [
                ("400 key", RawBridge.account(Seed.pendingVisa) + "/ephemeral_keys", keyBody),
                ("400 pin", RawBridge.account(Seed.inactiveMastercard) + "/pin", ""),
            ] {
                rawReplies.append(
                    (
                        name, "POST", path,
                        try await raw.send(
                            .post, path, idempotencyKey: "raw-\(name)", body: body.isEmpty ? nil : body), body
                    ))
            }
            simulator.simulationClock.advance(by: 86_400 + 1)
            rawReplies.append(
                (
                    "422 expired", "POST", path,
                    try await raw.send(.post, path, idempotencyKey: "reused", body: RawBridge.appleBody()),
                    RawBridge.appleBody()
                ))

            var exchanges: [SpecExchange] = []
            for (index, exchange) in wire.exchanges.enumerated() where exchange.status != nil {
                exchanges.append(
                    SpecExchange(
                        "adapter #\(index + 1) \(exchange.method) \(exchange.path)", document: "openapi", exchange,
                        adapter: true))
            }
            for (name, method, path, reply, body) in rawReplies {
                let exchange = WireExchange(
                    method: method, path: "/v0" + path, requestBody: body.isEmpty ? nil : Data(body.utf8),
                    status: reply.status,
                    responseBody: reply.body)
                exchanges.append(SpecExchange("raw \(name)", document: "openapi", exchange, adapter: false))
            }
            return exchanges
        }
    }

    /// The signed `card_account` webhooks: the envelope against `WebhookEvent`, its object against `CardAccount`.
    static func webhooks() throws -> [SpecExchange] {
        let simulator = BridgeSimulator(clock: SimulationClock(fixed: BridgeLive.start))
        var result: [SpecExchange] = []
        // Every seeded account, in every event type the simulator sends for card accounts.
        for (id, previous, kind) in [
            (Seed.activeVisa, "frozen", "card_account.updated.status_transitioned"),
            (Seed.activeMastercard, "active", "card_account.updated"),
            (Seed.pendingVisa, nil, "card_account.created"),
            (Seed.inactiveMastercard, "active", "card_account.updated.status_transitioned"),
            (Seed.frozenByCustomer, "active", "card_account.updated.status_transitioned"),
            (Seed.frozenByDeveloper, "active", "card_account.updated.status_transitioned"),
            (Seed.otherCustomerActiveVisa, nil, "card_account.created"),
        ] {
            let delivery = try #require(
                try simulator.signedCardAccountWebhook(cardAccountID: id, previousStatus: previous, type: kind))
            guard var event = try JSONSerialization.jsonObject(with: delivery.body) as? [String: Any] else {
                Issue.record("the event is not a JSON object")
                continue
            }
            // The document's `event_type` enum lists the types without their category, while its description says
            // "The values here will be prefixed with the event_category": the prefix is checked here and removed
            // before the enum is.
            let type = try #require(event["event_type"] as? String)
            #expect(type == kind && type.hasPrefix("card_account."), "\(type)")
            event["event_type"] = String(type.dropFirst("card_account.".count))
            result.append(
                SpecExchange(
                    "webhook \(id) \(kind)", document: "openapi", schema: "WebhookEvent",
                    body: try JSONSerialization.data(withJSONObject: event)))
            let object = try #require(event["event_object"])
            result.append(
                SpecExchange(
                    "webhook \(id) \(kind) event_object", document: "openapi", schema: "CardAccount",
                    body: try JSONSerialization.data(withJSONObject: object)))
        }
        return result
    }

    @Test func everyRequestAndAnswerFollowsTheDocument() async throws {
        try await SpecConformance.requireValidator()
        let exchanges = try await Self.exchanges() + Self.webhooks()
        let report = try await SpecConformance.check(Self.run(exchanges))
        SpecConformance.expectConformance(report, covering: Self.operations)
        #expect((report.requestBodies ?? 0) >= 8, "request bodies validated: \(report.requestBodies ?? 0)")
    }

    @Test func validatorCatchesProblems() async throws {
        try await SpecConformance.requireValidator()
        func exchange(
            _ name: String, _ method: String, _ path: String, _ status: Int, request: String? = nil, response: String
        ) -> SpecExchange {
            SpecExchange(
                name, document: "openapi",
                WireExchange(
                    method: method, path: "/v0" + path, requestBody: request.map { Data($0.utf8) }, status: status,
                    responseBody: Data(response.utf8)), adapter: true)
        }
        let balances = #"{"available":{"amount":"1","currency":"usdc"},"hold":{"amount":"0","currency":"usdc"}}"#
        let report = try await SpecConformance.check(
            Self.run([
                exchange(
                    "closed", "GET", "/customers/c/card_accounts/a", 200,
                    response: #"{"id":"a","customer_id":"c","status":"closed","balances":\#(balances),"freezes":[]}"#),
                exchange(
                    "amount", "GET", "/customers/c/card_accounts/a", 200,
                    response:
                        #"{"id":"a","customer_id":"c","status":"active","balances":{"available":{"amount":1,"currency":"usdc"},"hold":{"amount":"0","currency":"usdc"}},"freezes":[]}"#
                ),
                exchange(
                    "no customer", "GET", "/customers/c/card_accounts/a", 200,
                    response: #"{"id":"a","status":"active","balances":\#(balances),"freezes":[]}"#),
                exchange(
                    "freeze member", "GET", "/customers/c/card_accounts/a", 200,
                    response:
                        #"{"id":"a","customer_id":"c","status":"frozen","balances":\#(balances),"freezes":[{"card_account_id":"a","initiator":"customer","reason":"other","created_at":"x","colour":"red"}]}"#
                ),
                exchange(
                    "freeze status", "POST", "/customers/c/card_accounts/a/freeze", 200,
                    request: #"{"initiator":"developer","reason":"other"}"#,
                    response: #"{"card_account_id":"a","initiator":"developer","reason":"other","created_at":"x"}"#),
                exchange(
                    "request initiator", "POST", "/customers/c/card_accounts/a/unfreeze", 200,
                    request: #"{"initiator":"bank"}"#,
                    response:
                        #"{"card_account_id":"a","initiator":"developer","reason":"other","created_at":"x","status":"freeze_removed"}"#
                ),
                exchange("error", "GET", "/customers/c/card_accounts/a", 404, response: #"{"code":"Invalid"}"#),
            ]))
        let expected = [
            "[closed] response 200 $.status: \"closed\" is not one of the document's values",
            "[amount] response 200 $.balances.available.amount: is integer where the document says string",
            "[no customer] response 200 $: required member `customer_id` is missing",
            "[freeze member] response 200 $.freezes[0]: member(s) `colour` not defined by the document",
            "[freeze status] response 200 $: required member `status` is missing",
            "[request initiator] request $.initiator: \"bank\" is not one of the document's values",
            "[error] response 404 (the provider's error shape) $: required member `message` is missing",
        ]
        for line in expected {
            #expect(
                report.findings.contains { $0.hasPrefix(line) },
                "missing finding: \(line)\nreported:\n\(report.findings.joined(separator: "\n"))")
        }
    }

    @Test func errorShapesFollowTheSpecExamples() async throws {
        let spec = try BridgeSpec.load()
        let examples = spec["components"]?["responses"]
        let missingToken = try #require(
            examples?["AuthenticationError"]?["content"]?["application/json"]?["examples"]?["MissingTokenError"]?[
                "value"]?.objectValue)
        let unexpected = try #require(
            examples?["UnexpectedError"]?["content"]?["application/json"]?["examples"]?["UnexpectedError"]?["value"]?
                .objectValue)
        try await RawBridge.run { raw in
            let auth = try #require(try await raw.send(.get, RawBridge.account(), apiKey: nil).json)
            #expect(auth == missingToken, "the 401 body is the spec's MissingTokenError example")
            raw.handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v0/",
                    action: .status(
                        500, retryAfterSeconds: nil, message: "An expected error occurred, you may try again later")))
            let fault = try #require(try await raw.send(.get, RawBridge.account()).json)
            #expect(fault == unexpected, "the 500 body is the spec's UnexpectedError example")
        }
    }
}
