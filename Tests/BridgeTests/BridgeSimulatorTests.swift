import BridgeSimulator
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewaySimulation
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import Testing

/// Raw HTTP against the simulator (no adapter), through the core's default AsyncHTTPClient transport.
struct RawBridge: Sendable {
    let handle: SimulatorHandle
    let simulator: BridgeSimulator
    typealias Seed = BridgeSimulator.Seed

    struct Reply {
        var status: Int
        var body: Data
        var json: [String: JSONValue]? { (try? JSONValue.parse(body))?.objectValue }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func run<R: Sendable>(_ body: @Sendable (RawBridge) async throws -> R) async throws -> R {
        let simulator = BridgeSimulator(clock: SimulationClock(fixed: BridgeLive.start))
        return try await withSimulator(simulator) { handle in
            try await body(RawBridge(handle: handle, simulator: simulator))
        }
    }

    func send(
        _ method: HTTPRequest.Method, _ path: String, apiKey: String? = Seed.apiKey, idempotencyKey: String? = nil,
        body: String? = nil
    ) async throws -> Reply {
        var fields = HTTPFields()
        if let apiKey { fields[HTTPField.Name("Api-Key")!] = apiKey }
        if let idempotencyKey { fields[HTTPField.Name("Idempotency-Key")!] = idempotencyKey }
        if body != nil { fields[.contentType] = "application/json" }
        let request = HTTPRequest(
            method: method, scheme: "http", authority: "127.0.0.1:\(handle.port)", path: "/v0" + path,
            headerFields: fields)
        let response = try await AsyncHTTPClientTransport().send(
            request, body: body.map { Data($0.utf8) }, timeout: .seconds(30))
        return Reply(status: response.response.status.code, body: response.body)
    }

    static func account(_ card: String = Seed.activeVisa, customer: String = Seed.customerID) -> String {
        "/customers/\(customer)/card_accounts/\(card)"
    }

    static func provisioning(_ card: String = Seed.activeVisa) -> String {
        account(card) + "/create_mobile_wallet_provisioning_request"
    }

    /// An Apple request body in `encoding` (nil omits `encoding`, meaning hex).
    static func appleBody(
        encoding: String? = "hex", leaf: Data = BridgeFixtures.leafCertificate,
        subordinate: Data = BridgeFixtures.subordinateCertificate,
        nonce: Data = BridgeFixtures.nonce, uppercase: Bool = false
    ) -> String {
        func encode(_ data: Data) -> String {
            if encoding == "base64" { return data.base64EncodedString() }
            let hex = ByteEncoding.hex(data)
            return uppercase ? hex.uppercased() : hex
        }
        let encodingField = encoding.map { #""encoding":"\#($0)","# } ?? ""
        return """
            {"wallet_provider":"apple_pay","apple_pay":{\(encodingField)"leaf_cert":"\(encode(leaf))","subordinate_cert":"\(encode(subordinate))",\
            "nonce":"\(encode(nonce))","nonce_signature":"\(encode(BridgeFixtures.nonceSignature))"},"initiator":"ignored"}
            """
    }
}

@Suite("Bridge simulator over raw HTTP", .timeLimit(.minutes(5)))
struct BridgeSimulatorTests {
    typealias Seed = BridgeSimulator.Seed

    @Test func authenticationUsesThe401ExampleShape() async throws {
        try await RawBridge.run { raw in
            let missing = try await raw.send(.get, RawBridge.account(), apiKey: nil)
            #expect(missing.status == 401)
            #expect(
                missing.text
                    == #"{"code":"required","location":"header","message":"Missing Api-Key header","name":"Api-Key"}"#)
            let wrong = try await raw.send(.get, RawBridge.account(), apiKey: "sk-test-nope")
            #expect(wrong.status == 401)
            #expect(
                wrong.text
                    == #"{"code":"invalid","location":"header","message":"Invalid Api-Key header","name":"Api-Key"}"#)
            let postWithoutKey = try await raw.send(
                .post, RawBridge.provisioning(), apiKey: nil, idempotencyKey: "k1", body: RawBridge.appleBody())
            #expect(postWithoutKey.status == 401)
        }
    }

    @Test func idempotencyKeyRequiredOnPostAndRefusedOnGet() async throws {
        try await RawBridge.run { raw in
            let onGet = try await raw.send(.get, RawBridge.account(), idempotencyKey: "k-get")
            #expect(onGet.status == 400)
            #expect(onGet.json?["code"] == .string("invalid_parameters"))
            #expect(
                onGet.json?["source"] == .object(["location": .string("header"), "key": .string("Idempotency-Key")]))
            let missing = try await raw.send(.post, RawBridge.provisioning(), body: RawBridge.appleBody())
            #expect(missing.status == 400)
            #expect(missing.json?["code"] == .string("required"))
            #expect(missing.json?["source"]?["key"] == .string("Idempotency-Key"))
            let empty = try await raw.send(
                .post, RawBridge.account() + "/freeze", idempotencyKey: "",
                body: #"{"initiator":"developer","reason":"other"}"#)
            #expect(empty.status == 400)
            #expect(raw.simulator.cardAccount(Seed.activeVisa)?.status == "active")
        }
    }

    @Test func unknownCustomersAndCardsAre404() async throws {
        try await RawBridge.run { raw in
            let customer = try await raw.send(.get, RawBridge.account(customer: "nobody"))
            #expect(customer.status == 404)
            #expect(customer.text == #"{"code":"Invalid","message":"Unknown customer id"}"#)
            let card = try await raw.send(.get, RawBridge.account("nothing"))
            #expect(card.status == 404)
            let foreign = try await raw.send(.get, RawBridge.account(Seed.otherCustomerActiveVisa))
            #expect(foreign.status == 404)
            let route = try await raw.send(.get, "/customers/\(Seed.customerID)/nothing_here")
            #expect(route.status == 404)
            #expect(route.json?["code"] == .string("Invalid"))
        }
    }

    @Test func encodingDefaultsToHexAndAcceptsBothCases() async throws {
        try await RawBridge.run { raw in
            let omitted = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k-hex-default",
                body: RawBridge.appleBody(encoding: nil))
            #expect(omitted.status == 200)
            let upper = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k-hex-upper",
                body: RawBridge.appleBody(uppercase: true))
            #expect(upper.status == 200)
            let base64 = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k-b64", body: RawBridge.appleBody(encoding: "base64"))
            #expect(base64.status == 200)
            // Base64 text without `encoding` is read as hex, and refused.
            let base64AsHex = RawBridge.appleBody(encoding: "base64").replacingOccurrences(
                of: #""encoding":"base64","#, with: "")
            let refused = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k-b64-as-hex", body: base64AsHex)
            #expect(refused.status == 400)
            #expect(
                refused.json?["source"]?["key"]
                    == .string(
                        "apple_pay.leaf_cert,apple_pay.subordinate_cert,apple_pay.nonce,apple_pay.nonce_signature"))
            let unknown = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k-b32", body: RawBridge.appleBody(encoding: "base32"))
            #expect(unknown.status == 400)
            #expect(unknown.json?["source"]?["key"] == .string("apple_pay.encoding"))
        }
    }

    @Test func payloadsAreWellFormed() async throws {
        try await RawBridge.run { raw in
            let reply = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k-payload", body: RawBridge.appleBody())
            #expect(reply.status == 200)
            let apple = try #require(reply.json?["apple_pay"]?.objectValue)
            #expect(Set(apple.keys) == ["activation_data", "encrypted_pass_data", "ephemeral_public_key"])
            let key = try #require(apple["ephemeral_public_key"]?.stringValue.flatMap(ByteEncoding.decodeBase64))
            #expect(key.count == 65 && key.first == 0x04)
            _ = try P256.KeyAgreement.PublicKey(x963Representation: key)
            let sealed = try #require(apple["encrypted_pass_data"]?.stringValue.flatMap(ByteEncoding.decodeBase64))
            #expect(sealed.count > 28)
            #expect(!sealed.contains(Data("4432528000121269".utf8)))
            #expect(!reply.text.contains("4432528000121269"))
            let plain = try JSONValue.parse(try BridgeSimulator.openEncryptedPassData(sealed, ephemeralPublicKey: key))
            #expect(plain["expiration"] == .string("10/29"))
            #expect(plain["name"] == .string("Ada King Lovelace"))
            #expect(apple["activation_data"]?.stringValue.flatMap(ByteEncoding.decodeBase64) != nil)

            let again = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k-payload-2", body: RawBridge.appleBody())
            #expect(
                again.json?["apple_pay"]?["ephemeral_public_key"] != apple["ephemeral_public_key"],
                "each attempt has its own ephemeral key")
        }
    }

    static let notDER: [(String, Data)] = {
        let inner: [UInt8] =
            BridgeFixtures.der(0x30, [0x02, 0x01, 0x01]) + BridgeFixtures.der(0x30, [])
            + BridgeFixtures.der(0x03, [0x00])
        let leaf = BridgeFixtures.leafCertificate
        var cases: [(String, Data)] = []
        cases.append(("random bytes", Data("definitely not a certificate".utf8)))
        cases.append(("two certificates in one field", leaf + BridgeFixtures.subordinateCertificate))
        cases.append(("trailing byte", leaf + Data([0x00])))
        cases.append(("truncated", Data(leaf.dropLast(1))))
        cases.append(("indefinite length", Data([0x30, 0x80] + inner + [0x00, 0x00])))
        cases.append(("non-minimal length", Data([0x30, 0x81, 0x0a] + inner)))
        cases.append(("a SET, not a SEQUENCE", Data(BridgeFixtures.der(0x31, inner))))
        cases.append(("not X.509-shaped", Data(BridgeFixtures.der(0x30, BridgeFixtures.der(0x02, [0x01])))))
        cases.append(("inner overrun", Data([0x30, 0x05, 0x30, 0x09, 0x02, 0x01, 0x01])))
        return cases
    }()

    @Test(arguments: notDER)
    func nonDERCertificatesAreRefused(name: String, certificate: Data) async throws {
        try await RawBridge.run { raw in
            let leaf = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k-leaf", body: RawBridge.appleBody(leaf: certificate))
            #expect(leaf.status == 400, "\(name)")
            #expect(leaf.json?["code"] == .string("invalid_parameters"))
            #expect(leaf.json?["source"]?["key"] == .string("apple_pay.leaf_cert"))
            let sub = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k-sub",
                body: RawBridge.appleBody(encoding: "base64", subordinate: certificate))
            #expect(sub.status == 400, "\(name)")
            #expect(sub.json?["source"]?["key"] == .string("apple_pay.subordinate_cert"))
        }
    }

    @Test func missingFieldsAreListedTogether() async throws {
        try await RawBridge.run { raw in
            let apple = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k1",
                body: #"{"wallet_provider":"apple_pay","apple_pay":{"encoding":"hex","leaf_cert":""}}"#)
            #expect(apple.status == 400)
            #expect(
                apple.json?["source"]?["key"]
                    == .string(
                        "apple_pay.leaf_cert,apple_pay.subordinate_cert,apple_pay.nonce,apple_pay.nonce_signature"))
            #expect(apple.json?["source"]?["location"] == .string("body"))
            let google = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k2",
                body: #"{"wallet_provider":"google_pay","google_pay":{"client_device_id":"d"}}"#)
            #expect(google.json?["source"]?["key"] == .string("google_pay.client_wallet_account_id"))
            let noObject = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k3", body: #"{"wallet_provider":"google_pay"}"#)
            #expect(noObject.json?["source"]?["key"] == .string("google_pay"))
            let wallet = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k4", body: #"{"wallet_provider":"samsung_pay"}"#)
            #expect(wallet.json?["source"]?["key"] == .string("wallet_provider"))
            let notJSON = try await raw.send(.post, RawBridge.provisioning(), idempotencyKey: "k5", body: "nope")
            #expect(notJSON.status == 400)
        }
    }

    @Test func onlyActiveAccountsAreProvisioned() async throws {
        try await RawBridge.run { raw in
            for card in [Seed.pendingVisa, Seed.inactiveMastercard, Seed.frozenByCustomer, Seed.frozenByDeveloper] {
                let reply = try await raw.send(
                    .post, RawBridge.provisioning(card), idempotencyKey: "k-\(card)", body: RawBridge.appleBody())
                #expect(reply.status == 400)
                #expect(reply.json?["code"] == .string("card_account_not_active"))
                #expect(
                    reply.json?["source"] == .object(["location": .string("path"), "key": .string("cardAccountID")]))
            }
        }
    }

    @Test func replayConflictExpiryAndRefusalsThatDoNotConsumeTheKey() async throws {
        try await RawBridge.run { raw in
            let body = RawBridge.appleBody()
            let first = try await raw.send(.post, RawBridge.provisioning(), idempotencyKey: "k-replay", body: body)
            let replay = try await raw.send(.post, RawBridge.provisioning(), idempotencyKey: "k-replay", body: body)
            #expect(first.status == 200)
            #expect(replay.status == 200)
            #expect(replay.body == first.body, "same key, same body: the first answer byte for byte")
            let conflict = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k-replay",
                body: RawBridge.appleBody(nonce: Data([9, 9])))
            #expect(conflict.status == 409)
            #expect(conflict.json?["code"] == .string("idempotency_key_conflict"))
            let otherEndpoint = try await raw.send(
                .post, RawBridge.account() + "/freeze", idempotencyKey: "k-replay",
                body: #"{"initiator":"developer","reason":"other"}"#)
            #expect(otherEndpoint.status == 409, "keys are scoped to the API key, not the endpoint")

            raw.simulator.simulationClock.advance(by: 24 * 60 * 60 - 1)
            let late = try await raw.send(.post, RawBridge.provisioning(), idempotencyKey: "k-replay", body: body)
            #expect(late.body == first.body)
            raw.simulator.simulationClock.advance(by: 1)
            let expired = try await raw.send(.post, RawBridge.provisioning(), idempotencyKey: "k-replay", body: body)
            #expect(expired.status == 422)
            #expect(expired.json?["code"] == .string("idempotency_key_expired"))

            let refused = try await raw.send(
                .post, RawBridge.provisioning(), idempotencyKey: "k-retry", body: #"{"wallet_provider":"apple_pay"}"#)
            #expect(refused.status == 400)
            let corrected = try await raw.send(.post, RawBridge.provisioning(), idempotencyKey: "k-retry", body: body)
            #expect(corrected.status == 200)
        }
    }

    @Test func freezeStateTransitions() async throws {
        try await RawBridge.run { raw in
            let path = RawBridge.account(Seed.activeMastercard)
            let freeze = try await raw.send(
                .post, path + "/freeze", idempotencyKey: "f1",
                body:
                    #"{"initiator":"customer","reason":"lost_or_stolen","reason_detail":"left on a train","ending_at":"2026-02-01T00:00:00Z"}"#
            )
            #expect(freeze.status == 200)
            #expect(freeze.json?["status"] == .string("freeze_created"))
            #expect(freeze.json?["card_account_id"] == .string(Seed.activeMastercard))
            #expect(freeze.json?["ending_at"] == .string("2026-02-01T00:00:00.000Z"))
            #expect(raw.simulator.cardAccount(Seed.activeMastercard)?.status == "frozen")
            let account = try await raw.send(.get, path)
            #expect(account.json?["status"] == .string("frozen"))
            #expect(account.json?["freezes"]?.arrayValue?.first?["initiator"] == .string("customer"))
            let badReason = try await raw.send(
                .post, path + "/freeze", idempotencyKey: "f2", body: #"{"initiator":"customer","reason":"bored"}"#)
            #expect(badReason.status == 400)
            #expect(badReason.json?["source"]?["key"] == .string("reason"))
            let missing = try await raw.send(.post, path + "/freeze", idempotencyKey: "f3", body: "{}")
            #expect(missing.json?["source"]?["key"] == .string("initiator,reason"))
            let wrongInitiator = try await raw.send(
                .post, path + "/unfreeze", idempotencyKey: "u1", body: #"{"initiator":"developer"}"#)
            #expect(wrongInitiator.status == 400)
            #expect(wrongInitiator.json?["code"] == .string("freeze_not_found"))
            let unfreeze = try await raw.send(
                .post, path + "/unfreeze", idempotencyKey: "u2", body: #"{"initiator":"customer"}"#)
            #expect(unfreeze.json?["status"] == .string("freeze_removed"))
            #expect(unfreeze.json?["reason_detail"] == .string("left on a train"))
            #expect(raw.simulator.cardAccount(Seed.activeMastercard)?.status == "active")
            let pending = try await raw.send(
                .post, RawBridge.account(Seed.pendingVisa) + "/freeze", idempotencyKey: "f4",
                body: #"{"initiator":"developer","reason":"other"}"#)
            #expect(pending.status == 400)
            #expect(pending.json?["code"] == .string("card_account_not_active"))

            await raw.simulator.reset()
            #expect(raw.simulator.cardAccount(Seed.activeMastercard) == Seed.cardAccounts[1])
        }
    }

    @Test func faultsUseBridgeErrorShapes() async throws {
        try await RawBridge.run { raw in
            raw.handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v0/", action: .status(500, retryAfterSeconds: nil, message: "simulated")))
            let unexpected = try await raw.send(.get, RawBridge.account())
            #expect(unexpected.status == 500)
            #expect(unexpected.text == #"{"errors":[{"code":"unexpected","message":"simulated"}]}"#)
            raw.handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v0/",
                    action: .status(401, retryAfterSeconds: nil, message: "Invalid Api-Key header")))
            let auth = try await raw.send(.get, RawBridge.account())
            #expect(auth.json?["location"] == .string("header"))
            #expect(auth.json?["name"] == .string("Api-Key"))
            raw.handle.faults.inject(
                FaultRule(
                    count: 1, pathPrefix: "/v0/", action: .status(429, retryAfterSeconds: 3, message: "slow down")))
            let limited = try await raw.send(.get, RawBridge.account())
            #expect(limited.status == 429)
            #expect(limited.json?["code"] == .string("rate_limited"))
            let after = try await raw.send(.get, RawBridge.account())
            #expect(after.status == 200)
        }
    }

    @Test func seedIsConsistent() {
        for account in Seed.cardAccounts {
            #expect(luhnValid(account.pan), "\(account.id)")
            #expect(account.bin.count == 8)
            #expect(account.id.count <= 42 && account.id.allSatisfy { $0.isLowercase || $0.isNumber })
            #expect(Seed.customers.contains { $0.id == account.customerID })
        }
        let statuses = Set(Seed.cardAccounts.map(\.status))
        #expect(statuses == ["active", "pending", "inactive", "frozen"])
        let initiators = Set(Seed.cardAccounts.flatMap(\.freezes).map(\.initiator))
        #expect(initiators == ["customer", "developer"])
        let networks = Set(Seed.cardAccounts.map { $0.pan.first })
        #expect(networks == ["4", "5", "2"])
    }

    private func luhnValid(_ pan: String) -> Bool {
        let digits = pan.compactMap { $0.wholeNumberValue }
        guard digits.count == pan.count, digits.count >= 12 else { return false }
        var sum = 0
        for (index, digit) in digits.reversed().enumerated() {
            let value = index % 2 == 1 ? digit * 2 : digit
            sum += value > 9 ? value - 9 : value
        }
        return sum % 10 == 0
    }
}
