@_spi(AdapterSupport) import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import SharedTestSupport
import Testing

@_spi(AdapterSupport) @testable import CardGatewayStripe
@testable import StripeSimulator

/// Stripe's OpenAPI for the Issuing paths (`Tests/StripeTests/Fixtures/stripe-spec3-issuing-subset-2022-04-12.json`, an
/// extract of stripe/openapi `spec3.json`, API version 2020-08-27) and Stripe's own 2026 example objects
/// (`Fixtures/stripe-fixtures3-issuing.json`). A missing file fails the suite.
enum StripeSpec {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let url = folder.appendingPathComponent("stripe-spec3-issuing-subset-2022-04-12.json")
    static let examplesURL = folder.appendingPathComponent("stripe-fixtures3-issuing.json")

    /// Members Stripe added after the 2022 extract, by the object (and the member path inside it) they belong to. The
    /// extract's closed objects would refuse them; they are taken out before validation, and a test checks that each
    /// one is in Stripe's 2026 example of that object, at the same place. Nothing else is taken out.
    static let newerMembers: [String: Set<String>] = [
        "issuing.card": ["latest_fraud_warning", "lifecycle_controls", "personalization_design", "second_line"],
        "issuing.card.spending_controls": [
            "allowed_card_presences", "allowed_merchant_countries", "blocked_card_presences",
            "blocked_merchant_countries",
        ],
        "issuing.cardholder": ["preferred_locales"],
        "issuing.authorization": [
            "card_presence", "fleet", "fuel", "network_data", "token", "verified_by_fraud_challenge",
        ],
        "issuing.authorization.merchant_data": ["tax_id", "terminal_id", "url"],
        "issuing.authorization.pending_request": ["network_risk_score"],
        "issuing.authorization.verification_data": ["authentication_exemption", "postal_code", "three_d_secure"],
        "issuing.cardholder.spending_controls": [
            "allowed_card_presences", "allowed_merchant_countries", "blocked_card_presences",
            "blocked_merchant_countries",
        ],
    ]

    /// Members of each `request_history` entry Stripe added after the extract. Stripe's example authorization has an
    /// empty `request_history`, so these are checked against stripe-python 16.1.0's `Authorization.RequestHistory`
    /// (generated from Stripe's current OpenAPI document) instead.
    static let newerHistoryMembers: Set<String> = [
        "authorization_code", "network_risk_score", "reason_message", "requested_at",
    ]

    /// `value` with the ``newerMembers`` of every `issuing.card` and `issuing.cardholder` in it removed, and the names
    /// removed (`issuing.card.second_line`).
    static func withoutNewerMembers(_ value: Any, removed: inout Set<String>) -> Any {
        if let array = value as? [Any] { return array.map { withoutNewerMembers($0, removed: &removed) } }
        guard var object = value as? [String: Any] else { return value }
        for (key, member) in object { object[key] = withoutNewerMembers(member, removed: &removed) }
        guard let kind = object["object"] as? String, newerMembers[kind] != nil else { return object }
        func prune(_ dictionary: inout [String: Any], _ path: String) {
            for name in newerMembers[path] ?? [] where dictionary[name] != nil {
                dictionary[name] = nil
                removed.insert("\(path).\(name)")
            }
            for (key, member) in dictionary {
                guard var inner = member as? [String: Any], newerMembers["\(path).\(key)"] != nil else { continue }
                prune(&inner, "\(path).\(key)")
                dictionary[key] = inner
            }
        }
        prune(&object, kind)
        if kind == "issuing.authorization", let history = object["request_history"] as? [[String: Any]] {
            object["request_history"] = history.map { entry in
                var entry = entry
                for name in newerHistoryMembers where entry[name] != nil {
                    entry[name] = nil
                    removed.insert("issuing.authorization.request_history.\(name)")
                }
                return entry
            }
        }
        return object
    }

    /// The extract with every expandable member (`x-expansionResources`) in its unexpanded form only: the id, not the
    /// object; and its nullable `anyOf`s with null spelled out. Stripe expands a member only when `expand[]` names it, which the adapter never does for these; and the
    /// expanded forms are where the document refers to itself (`issuing.card.replaced_by` is an `issuing.card`),
    /// which the validator cannot inline. Written once per process to a temporary file.
    static func unexpandedDocument() throws -> URL { try unexpanded.get() }

    private static let unexpanded: Result<URL, any Error> = Result {
        func unexpand(_ value: Any) -> Any {
            if let array = value as? [Any] { return array.map(unexpand) }
            guard var object = value as? [String: Any] else { return value }
            if object["x-expansionResources"] != nil, let options = object["anyOf"] as? [Any] {
                object["anyOf"] = options.filter { ($0 as? [String: Any])?["$ref"] == nil }
            }
            // OpenAPI 3.0 `nullable: true` beside an `anyOf` (Stripe's nullable references, `shipping`, `company`):
            // null is allowed. The script reads `nullable` beside a `type` only, so null is spelled out as one more
            // alternative.
            if object["nullable"] as? Bool == true, let options = object["anyOf"] as? [Any] {
                object["anyOf"] = options + [["enum": [NSNull()], "nullable": true] as [String: Any]]
            }
            return object.mapValues(unexpand)
        }
        let document = unexpand(try JSONSerialization.jsonObject(with: Data(contentsOf: url)))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stripe-spec3-unexpanded-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: document).write(to: file)
        return file
    }

    static func pruned(_ data: Data?, removed: inout Set<String>) throws -> Data? {
        guard let data, !data.isEmpty else { return data }
        let value = try JSONSerialization.jsonObject(with: data)
        return try JSONSerialization.data(withJSONObject: withoutNewerMembers(value, removed: &removed))
    }
}

/// The simulator's answers to the operations the adapter uses (the Issuing card paths of the extract; ephemeral keys
/// and Issuing tokens are newer than it, and checked against Stripe's examples by `StripePublishedExamplesTests`), and
/// the bodies of its webhooks, validated against Stripe's OpenAPI by `scripts/spec-conformance.py` with the `jsonschema`
/// package. Requests are form-encoded, which the script does not read: stripe-python checks them
/// (`StripeOfficialClientTests`). Only 2xx answers: the script knows no Stripe error shape yet.
@Suite("Stripe simulator against Stripe's OpenAPI", .timeLimit(.minutes(5)))
struct StripeSpecConformanceTests {
    static func run(_ exchanges: [SpecExchange] = []) throws -> SpecConformanceRun {
        SpecConformanceRun(
            provider: "stripe", documents: ["spec": try StripeSpec.unexpandedDocument().path], basePath: "",
            exchanges: exchanges)
    }

    static let operations: Set<String> = [
        "GET /v1/issuing/cards/{card} 200",
        "GET /v1/issuing/cards 200",
        "POST /v1/issuing/cards 200",
        "POST /v1/issuing/cards/{card} 200",
        "SCHEMA event",
        "SCHEMA issuing.card",
        "SCHEMA issuing.authorization",
    ]

    /// Drives every card operation through the adapter and keeps the simulator's answers on the Issuing card paths.
    static func exchanges(removed: inout Set<String>) async throws -> [SpecExchange] {
        let simulator = SimulatorFixture.simulator()
        let wire = WireRecorder(AsyncHTTPClientTransport())
        try await withSimulator(simulator) { handle in
            let http = try ProviderHTTPClient(
                instance: "stripe-sim", kind: .stripe, baseURL: handle.baseURL, transport: wire,
                timeout: .seconds(30), retry: .none)
            let stripe = try StripeProvider(
                configuration: StripeConfiguration(
                    secretKey: Secret(StripeSimulator.Credentials.default.testSecretKey)),
                http: http, environment: "sandbox")
            let context = OperationContext()
            for id in [
                Seed.activeCardID, Seed.activeCardWithoutPrimaryAccountIdentifierID, Seed.inactiveCardID,
                Seed.canceledCardID, Seed.unsupportedRegionCardID,
            ] {
                _ = try await stripe.card(CardRef(id: id), context: context)
            }
            _ = try await stripe.listCards(StripeCardListQuery(limit: 100), context: context)
            let created = try await stripe.createCard(
                CreateCardRequest(customer: Seed.cardholderID, type: .virtual, program: "", currency: "USD"),
                context: context)
            _ = try await stripe.updateCardStatus(card: created.ref, status: .active, context: context)
            _ = try await stripe.updateCardStatus(
                card: CardRef(id: Seed.missingAgreementCardID), status: .cancelled, reason: "lost", context: context)
            _ = try await stripe.revealSession(
                RevealSessionRequest(
                    card: CardRef(id: Seed.activeCardID), purpose: .pinChange,
                    encryptedPINBlock: Secret(StripeRevealSessionTests.ciphertext)),
                context: context)
        }
        var result: [SpecExchange] = []
        for (index, exchange) in wire.exchanges.enumerated()
        where exchange.status.map({ (200..<300).contains($0) }) == true
            && exchange.path.hasPrefix("/v1/issuing/cards")
        {
            var pruned = exchange
            pruned.responseBody = try StripeSpec.pruned(exchange.responseBody, removed: &removed)
            result.append(
                SpecExchange(
                    "#\(index + 1) \(exchange.method) \(exchange.path)", document: "spec", pruned, adapter: false))
        }
        return result
    }

    /// The simulator's webhook events: the envelope against `event`, the card inside against `issuing.card` (Stripe's
    /// extract has no `issuing.token` schema; token events are checked for the envelope only).
    static func webhooks(removed: inout Set<String>) throws -> [SpecExchange] {
        let simulator = SimulatorFixture.simulator()
        var result: [SpecExchange] = []
        var deliveries: [(String, Data)] = []
        for (card, previous) in [(Seed.activeCardID, "inactive"), (Seed.canceledCardID, "active")] {
            let object = try #require(simulator.cardObject(card))
            deliveries.append(
                (
                    "issuing_card.updated \(card)",
                    simulator.signedWebhook(
                        type: "issuing_card.updated", object: object, previousAttributes: ["status": .string(previous)]
                    ).body
                ))
            deliveries.append(
                (
                    "issuing_card.created \(card)",
                    simulator.signedWebhook(type: "issuing_card.created", object: object).body
                ))
        }
        let token = try #require(simulator.tokenObject(Seed.activeApplePayTokenID))
        deliveries.append(
            ("issuing_token.updated", simulator.signedWebhook(type: "issuing_token.updated", object: token).body))
        // Real-time authorization: the request the network sends (an authorization with its pending_request), and the
        // authorizations it records after an approval, a reduced approval, a decline and a timeout (the reasons the
        // extract's enum has; `webhook_error` and `card_canceled` are newer than it).
        let request = try #require(
            simulator.signedAuthorizationRequest(card: Seed.activeCardID, amount: 1_250, controllable: true))
        deliveries.append(("issuing_authorization.request", request.body))
        var authorizations: [(String, Data)] = []
        for (index, read) in [
            StripeSimulator.ReadAnswer(approved: true, amount: nil, reason: "webhook_approved"),
            StripeSimulator.ReadAnswer(approved: true, amount: 600, reason: "webhook_approved"),
            StripeSimulator.ReadAnswer(
                approved: false, amount: nil, reason: "webhook_declined", metadata: [("decline_reason", "other")]),
            StripeSimulator.ReadAnswer(approved: false, amount: nil, reason: "webhook_timeout"),
        ].enumerated() {
            var authorization = StripeSimulatorAuthorization(
                id: "iauth_1SimSpec\(index)", cardID: Seed.activeCardID, created: 1_700_000_000, currency: "usd",
                merchantCurrency: "usd",
                merchant: .init(name: "Corner Shop", categoryCode: "5411", country: "US", city: "Seattle"))
            simulator.record(
                &authorization,
                StripeSimulator.PendingAuthorizationRequest(amount: 1_250, currency: "usd", controllable: true),
                approved: read.approved, amount: read.amount, reason: read.reason, message: nil, at: 1_700_000_001)
            authorization.metadata = read.metadata
            authorizations.append(
                ("recorded \(read.reason) #\(index)", simulator.render(authorization: authorization, pending: nil).data)
            )
        }
        for (name, body) in authorizations {
            let pruned = try #require(try StripeSpec.pruned(body, removed: &removed))
            result.append(SpecExchange(name, document: "spec", schema: "issuing.authorization", body: pruned))
        }
        for (name, body) in deliveries {
            let event = try #require(try StripeSpec.pruned(body, removed: &removed))
            result.append(SpecExchange("webhook \(name)", document: "spec", schema: "event", body: event))
            let parsed = try #require(try JSONSerialization.jsonObject(with: event) as? [String: Any])
            let object = try #require((parsed["data"] as? [String: Any])?["object"] as? [String: Any])
            if let kind = object["object"] as? String, ["issuing.card", "issuing.authorization"].contains(kind) {
                result.append(
                    SpecExchange(
                        "webhook \(name) data.object", document: "spec", schema: kind,
                        body: try JSONSerialization.data(withJSONObject: object)))
            }
        }
        return result
    }

    @Test func everyAnswerAndWebhookFollowsTheDocument() async throws {
        try await SpecConformance.requireValidator()
        var removed: Set<String> = []
        let exchanges = try await Self.exchanges(removed: &removed) + Self.webhooks(removed: &removed)
        let report = try await SpecConformance.check(try Self.run(exchanges))
        SpecConformance.expectConformance(report, covering: Self.operations)
        #expect((report.responseBodies ?? 0) >= 15, "bodies validated: \(report.responseBodies ?? 0)")
        // What was taken out is exactly the table: a member the simulator stopped sending leaves the table too.
        let listed = Set(StripeSpec.newerMembers.flatMap { path, names in names.map { "\(path).\($0)" } })
            .union(StripeSpec.newerHistoryMembers.map { "issuing.authorization.request_history.\($0)" })
        #expect(removed == listed, "taken out: \(removed.sorted()), listed: \(listed.sorted())")
    }

    @Test("the check can fail: a status the document does not list, an undefined member, a missing one")
    func validatorCatchesProblems() async throws {
        try await SpecConformance.requireValidator()
        let simulator = SimulatorFixture.simulator()
        var removed: Set<String> = []
        let card = try #require(
            try StripeSpec.pruned(simulator.cardObject(Seed.activeCardID)?.data, removed: &removed))
        let object = try #require(try JSONSerialization.jsonObject(with: card) as? [String: Any])
        func body(_ change: (inout [String: Any]) -> Void) throws -> Data {
            var copy = object
            change(&copy)
            return try JSONSerialization.data(withJSONObject: copy)
        }
        let exchanges = [
            SpecExchange("as is", document: "spec", schema: "issuing.card", body: card),
            SpecExchange(
                "frozen", document: "spec", schema: "issuing.card", body: try body { $0["status"] = "frozen" }),
            SpecExchange(
                "colour", document: "spec", schema: "issuing.card", body: try body { $0["colour"] = "red" }),
            SpecExchange("no last4", document: "spec", schema: "issuing.card", body: try body { $0["last4"] = nil }),
        ]
        let report = try await SpecConformance.check(try Self.run(exchanges))
        #expect(!report.findings.contains { $0.hasPrefix("[as is]") }, "\(report.findings)")
        for name in ["frozen", "colour", "no last4"] {
            #expect(report.findings.contains { $0.hasPrefix("[\(name)]") }, "no finding for \(name): \(report.output)")
        }
    }

    @Test("every member taken out as newer than the extract is in Stripe's 2026 example, at the same place")
    func newerMembersAreStripes() throws {
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: StripeSpec.url)) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let examples = try #require(
            (try JSONSerialization.jsonObject(with: Data(contentsOf: StripeSpec.examplesURL)) as? [String: Any])?[
                "resources"] as? [String: Any])
        for (path, names) in StripeSpec.newerMembers {
            let parts = path.split(separator: ".").map(String.init)
            // `issuing.card` or `issuing.card.spending_controls`: the resource is the first two parts.
            let resource = parts.prefix(2).joined(separator: ".")
            var example = examples[resource] as? [String: Any]
            var schema = (schemas[resource] as? [String: Any])?["properties"] as? [String: Any]
            for member in parts.dropFirst(2) {
                example = example?[member] as? [String: Any]
                let node = schema?[member] as? [String: Any]
                let reference =
                    (node?["anyOf"] as? [[String: Any]])?.first?["$ref"] as? String ?? node?["$ref"] as? String
                schema =
                    reference.flatMap { (schemas[String($0.split(separator: "/").last ?? "")] as? [String: Any]) }?[
                        "properties"] as? [String: Any]
            }
            let exampleObject = try #require(example, "Stripe's example has no \(path)")
            let schemaProperties = try #require(schema, "the extract has no \(path)")
            for name in names {
                #expect(exampleObject.keys.contains(name), "\(path).\(name) is not in Stripe's 2026 example")
                #expect(!schemaProperties.keys.contains(name), "\(path).\(name) is in the extract: validate it")
            }
        }
    }

    @Test("every request_history member taken out as newer than the extract is in stripe-python's RequestHistory")
    func newerHistoryMembersAreStripes() async throws {
        try await OfficialClient.requireAvailable(module: "stripe")
        let result = try await OfficialClient.run([
            OfficialClient.python, "-c",
            "import stripe.issuing._authorization as a; print(' '.join(sorted(a.Authorization.RequestHistory.__annotations__)))",
        ])
        #expect(result.status == 0, "\(result.output)")
        let members = Set(result.output.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
        #expect(StripeSpec.newerHistoryMembers.isSubset(of: members), "stripe-python has \(members.sorted())")
    }
}
