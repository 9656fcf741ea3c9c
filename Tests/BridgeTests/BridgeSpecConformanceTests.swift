import BridgeSimulator
import CardGateway
import CardGatewayBridge
import CardGatewaySimulation
import CardGatewayTesting
import Foundation
import HTTPTypes
import Testing

/// Bridge's OpenAPI, committed next to these tests (`Tests/BridgeTests/Fixtures/bridge-openapi.json`). A missing
/// document fails the suite: nothing here is skipped.
enum BridgeSpec {
    static let url: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/bridge-openapi.json")

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

/// A small checker for the parts of OpenAPI schemas Bridge's spec uses: `$ref`, `allOf`, `type`, `enum`,
/// `required`, `properties`, `items`, `minLength`/`maxLength`. Where several `allOf` parts describe one property
/// their enums are united (the spec widens `freezes[].initiator` that way). Names a schema requires but never
/// defines are reported as drift, not as problems.
struct SchemaChecker {
    let spec: JSONValue
    var problems: [String] = []
    var drift: Set<String> = []

    init(spec: JSONValue) { self.spec = spec }

    func resolve(_ schema: JSONValue) -> JSONValue {
        guard let ref = schema["$ref"]?.stringValue, ref.hasPrefix("#/") else { return schema }
        var node: JSONValue? = spec
        for part in ref.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
        return node.map(resolve) ?? .null
    }

    func schema(named name: String) -> JSONValue { spec["components"]?["schemas"]?[name] ?? .null }

    /// The schema of a path's operation response (or request body, when `status` is nil).
    func operationSchema(path: String, method: String, status: String?) -> JSONValue {
        let operation = spec["paths"]?[path]?[method]
        let content: JSONValue?
        if let status {
            content = operation?["responses"]?[status]?["content"]
        } else {
            content = operation?["requestBody"]?["content"]
        }
        return content?["application/json"]?["schema"] ?? .null
    }

    /// Every part of a schema with its `allOf` expanded.
    func parts(_ schema: JSONValue) -> [JSONValue] {
        let resolved = resolve(schema)
        var result = [resolved]
        for sub in resolved["allOf"]?.arrayValue ?? [] { result += parts(sub) }
        return result
    }

    mutating func check(_ value: JSONValue, _ schemas: [JSONValue], at path: String) {
        let all = schemas.flatMap(parts)
        let types = Set(all.compactMap { $0["type"]?.stringValue })
        if !types.isEmpty && !types.contains(where: { Self.matches(value, type: $0) }) {
            problems.append("\(path): \(value.typeName) where the spec says \(types.sorted().joined(separator: "|"))")
            return
        }
        let enums = all.compactMap { $0["enum"]?.arrayValue }
        if !enums.isEmpty, !enums.flatMap({ $0 }).contains(value) {
            problems.append("\(path): \(value) is not one of the spec's values")
        }
        if let text = value.stringValue {
            for part in all {
                if let min = part["minLength"]?.intValue, text.count < min { problems.append("\(path): shorter than \(min)") }
                if let max = part["maxLength"]?.intValue, text.count > max { problems.append("\(path): longer than \(max)") }
            }
        }
        if let object = value.objectValue {
            var properties: [String: [JSONValue]] = [:]
            for part in all {
                for (name, property) in part["properties"]?.objectValue ?? [:] { properties[name, default: []].append(property) }
            }
            for part in all {
                for name in part["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                    if properties[name] == nil {
                        drift.insert("\(path).\(name)")
                    } else if object[name] == nil {
                        problems.append("\(path).\(name): required by the spec but missing")
                    }
                }
            }
            for (name, member) in object {
                if let schemas = properties[name] { check(member, schemas, at: "\(path).\(name)") }
            }
        }
        if let array = value.arrayValue {
            let items = all.compactMap { $0["items"] }
            for (index, element) in array.enumerated() where !items.isEmpty { check(element, items, at: "\(path)[\(index)]") }
        }
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("string", .string), ("object", .object), ("array", .array), ("boolean", .bool), ("number", .number): return true
        case ("integer", .number(let number)): return number == number.rounded()
        default: return false
        }
    }

    /// True when `method path` (path below `/v0`) is an operation of the spec.
    func hasOperation(method: String, path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (template, item) in spec["paths"]?.objectValue ?? [:] where item[method.lowercased()] != nil {
            let parts = template.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == segments.count else { continue }
            if zip(parts, segments).allSatisfy({ $0.hasPrefix("{") || $0 == $1 }) { return true }
        }
        return false
    }
}

@Suite("Bridge simulator and adapter against Bridge's OpenAPI")
struct BridgeSpecConformanceTests {
    typealias Seed = BridgeSimulator.Seed
    static let accountPath = "/customers/{customerID}/card_accounts/{cardAccountID}"

    @Test func checkerCatchesProblems() throws {
        var checker = SchemaChecker(spec: try BridgeSpec.load())
        let card = checker.schema(named: "CardAccount")
        checker.check(try JSONValue.parse(Data(#"{"id":"a","customer_id":"b","status":"closed","balances":{},"freezes":[]}"#.utf8)), [card], at: "$")
        checker.check(try JSONValue.parse(Data(#"{"id":"a","status":"active","balances":{"available":{"amount":1,"currency":"usdc"},"hold":{"amount":"0","currency":"usdc"}},"freezes":[]}"#.utf8)), [card], at: "$")
        #expect(checker.problems.contains { $0.hasPrefix("$.status") })
        #expect(checker.problems.contains { $0.hasPrefix("$.balances.available") })
        #expect(checker.problems.contains { $0 == "$.balances.available.amount: a number where the spec says string" })
        #expect(checker.problems.contains { $0 == "$.customer_id: required by the spec but missing" })
    }

    @Test func simulatorResponsesMatchTheSchemas() async throws {
        var checker = SchemaChecker(spec: try BridgeSpec.load())
        let replies = try await Self.collectReplies()
        for (name, status, body, schema) in replies {
            let json = try JSONValue.parse(body)
            #expect(status == (name == "account-created" ? 201 : 200) || name.hasPrefix("error"), "\(name): HTTP \(status)")
            checker.check(json, [schema(checker)], at: name)
        }
        #expect(checker.problems == [])
        // The spec's own drift: required names it never defines.
        #expect(checker.drift == [
            "apple.card_account_id", "apple.initiator", "apple.reason", "apple.created_at", "apple.status",
            "google.card_account_id", "google.initiator", "google.reason", "google.created_at", "google.status",
            "account-frozen-customer.freezes[0].status", "account-frozen-developer.freezes[0].status", "account-frozen-later.freezes[0].status",
            "account-list.data[4].freezes[0].status", "account-list.data[5].freezes[0].status",
        ])
    }

    typealias Reply = (name: String, status: Int, body: Data, schema: @Sendable (SchemaChecker) -> JSONValue)

    static func collectReplies() async throws -> [Reply] {
        try await RawBridgeCollector.collect()
    }

    @Test func errorShapesFollowTheSpecExamples() async throws {
        let spec = try BridgeSpec.load()
        let examples = spec["components"]?["responses"]
        let missingToken = try #require(examples?["AuthenticationError"]?["content"]?["application/json"]?["examples"]?["MissingTokenError"]?["value"]?.objectValue)
        let unexpected = try #require(examples?["UnexpectedError"]?["content"]?["application/json"]?["examples"]?["UnexpectedError"]?["value"]?.objectValue)
        try await RawBridge.run { raw in
            let auth = try #require(try await raw.send(.get, RawBridge.account(), apiKey: nil).json)
            #expect(auth == missingToken, "the 401 body is the spec's MissingTokenError example")
            raw.handle.faults.inject(FaultRule(count: 1, pathPrefix: "/v0/", action: .status(500, retryAfterSeconds: nil, message: "An expected error occurred, you may try again later")))
            let fault = try #require(try await raw.send(.get, RawBridge.account()).json)
            #expect(fault == unexpected, "the 500 body is the spec's UnexpectedError example")
        }
    }

    @Test func adapterRequestsMatchTheSchemasAndPaths() async throws {
        var checker = SchemaChecker(spec: try BridgeSpec.load())
        let entries = try await BridgeLive.run(encoding: .hex) { handle, provider, _ -> [JournalEntry] in
            _ = try await provider.card(BridgeLive.ref(Seed.activeVisa), context: OperationContext())
            _ = try await provider.provision(BridgeLive.appleRequest(), context: OperationContext())
            _ = try await provider.provision(
                ProvisioningRequest(card: BridgeLive.ref(Seed.activeVisa), wallet: .googlePay, input: BridgeFixtures.googleInput), context: OperationContext()
            )
            _ = try await provider.freeze(card: BridgeLive.ref(Seed.activeVisa), reason: .plannedInactivity, reasonDetail: "holiday", endingAt: BridgeLive.start.addingTimeInterval(86_400), context: OperationContext())
            _ = try await provider.unfreeze(card: BridgeLive.ref(Seed.activeVisa), context: OperationContext())
            _ = try await provider.listCards(CardQuery(customer: Seed.customerID), context: OperationContext())
            _ = try await provider.createCard(
                CreateCardRequest(customer: Seed.customerWithoutCardID, type: .virtual, program: "classic", currency: "usdc", externalID: "kj-1"),
                context: OperationContext()
            )
            return handle.journal.entries()
        }
        #expect(entries.count == 7)
        for entry in entries {
            let path = String(entry.path.dropFirst("/v0".count))
            #expect(checker.hasOperation(method: entry.method, path: path), "\(entry.method) \(path)")
            let isCreate = entry.method == "POST" && path.hasSuffix("/card_accounts")
            #expect(entry.responseStatus == (isCreate ? 201 : 200))
            guard entry.method == "POST" else { continue }
            let template = isCreate ? "/customers/{customerID}/card_accounts" : Self.accountPath + "/" + (path.split(separator: "/").last.map(String.init) ?? "")
            checker.check(try JSONValue.parse(entry.body), [checker.operationSchema(path: template, method: "post", status: nil)], at: String(path.split(separator: "/").last ?? ""))
        }
        #expect(checker.problems == [])
        #expect(checker.drift == ["create_mobile_wallet_provisioning_request.initiator"], "the spec requires an undefined initiator; we do not send it")
    }

    @Test func webhookEnvelopeMatchesWebhookEvent() async throws {
        var checker = SchemaChecker(spec: try BridgeSpec.load())
        let simulator = BridgeSimulator(clock: SimulationClock(fixed: BridgeLive.start))
        for (id, previous) in [(Seed.activeVisa, "frozen"), (Seed.frozenByCustomer, "active")] {
            let delivery = try #require(try simulator.signedCardAccountWebhook(cardAccountID: id, previousStatus: previous))
            guard case .object(var event) = try JSONValue.parse(delivery.body) else {
                Issue.record("the event is not a JSON object")
                continue
            }
            // The spec lists event_type without its category prefix ("values here will be prefixed with the event_category").
            let type = try #require(event["event_type"]?.stringValue)
            #expect(type.hasPrefix("card_account."))
            event["event_type"] = .string(String(type.dropFirst("card_account.".count)))
            checker.check(.object(event), [checker.schema(named: "WebhookEvent")], at: "event")
            checker.check(try JSONValue.parse(delivery.body)["event_object"] ?? .null, [checker.schema(named: "CardAccount")], at: "object")
        }
        #expect(checker.problems == [])
    }
}

/// Gathers one simulator answer per response schema.
enum RawBridgeCollector {
    typealias Seed = BridgeSimulator.Seed

    static func collect() async throws -> [BridgeSpecConformanceTests.Reply] {
        let accountPath = BridgeSpecConformanceTests.accountPath
        return try await RawBridge.run { raw in
            var replies: [BridgeSpecConformanceTests.Reply] = []
            func add(_ name: String, _ reply: RawBridge.Reply, _ schema: @escaping @Sendable (SchemaChecker) -> JSONValue) {
                replies.append((name, reply.status, reply.body, schema))
            }
            let cardAccount: @Sendable (SchemaChecker) -> JSONValue = { $0.schema(named: "CardAccount") }
            let error: @Sendable (SchemaChecker) -> JSONValue = { $0.schema(named: "Error") }
            let provisioning: @Sendable (SchemaChecker) -> JSONValue = { $0.schema(named: "CardPushProvisioningResponse") }
            let names = [
                (Seed.activeVisa, "account-active"), (Seed.pendingVisa, "account-pending"), (Seed.inactiveMastercard, "account-inactive"),
                (Seed.frozenByCustomer, "account-frozen-customer"), (Seed.frozenByDeveloper, "account-frozen-developer"),
            ]
            for (id, name) in names { add(name, try await raw.send(.get, RawBridge.account(id)), cardAccount) }
            let accounts = "/customers/{customerID}/card_accounts"
            add("account-list", try await raw.send(.get, "/customers/\(Seed.customerID)/card_accounts"),
                { $0.operationSchema(path: accounts, method: "get", status: "200") })
            add("account-created", try await raw.send(.post, "/customers/\(Seed.customerWithoutCardID)/card_accounts", idempotencyKey: "s0",
                                                      body: #"{"currency":"usdc","chain":"base","client_reference_id":"kj-1"}"#),
                { $0.operationSchema(path: accounts, method: "post", status: "201") })
            add("apple", try await raw.send(.post, RawBridge.provisioning(), idempotencyKey: "s1", body: RawBridge.appleBody()), provisioning)
            add("google", try await raw.send(.post, RawBridge.provisioning(), idempotencyKey: "s2",
                                             body: #"{"wallet_provider":"google_pay","google_pay":{"client_wallet_account_id":"w","client_device_id":"d"}}"#), provisioning)
            add("freeze", try await raw.send(.post, RawBridge.account() + "/freeze", idempotencyKey: "s3",
                                             body: #"{"initiator":"developer","reason":"other","reason_detail":"x","ending_at":"2026-03-01T00:00:00Z"}"#),
                { $0.operationSchema(path: accountPath + "/freeze", method: "post", status: "200") })
            add("account-frozen-later", try await raw.send(.get, RawBridge.account()), cardAccount)
            add("unfreeze", try await raw.send(.post, RawBridge.account() + "/unfreeze", idempotencyKey: "s4", body: #"{"initiator":"developer"}"#),
                { $0.operationSchema(path: accountPath + "/unfreeze", method: "post", status: "200") })
            add("error-400", try await raw.send(.post, RawBridge.provisioning(), idempotencyKey: "s5", body: "{}"), error)
            add("error-404", try await raw.send(.get, RawBridge.account("unknown")), error)
            add("error-409", try await raw.send(.post, RawBridge.provisioning(), idempotencyKey: "s1", body: RawBridge.appleBody(nonce: Data([7]))), error)
            raw.simulator.simulationClock.advance(by: 86_400)
            add("error-422", try await raw.send(.post, RawBridge.provisioning(), idempotencyKey: "s1", body: RawBridge.appleBody()), error)
            add("error-401", try await raw.send(.get, RawBridge.account(), apiKey: "wrong"), error)
            return replies
        }
    }
}
