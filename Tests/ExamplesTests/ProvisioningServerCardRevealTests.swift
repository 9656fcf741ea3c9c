import AdyenSimulator
import CardGateway
import CardGatewayTesting
import ExampleSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import Logging
import ProvisioningServerApp
import Synchronization
import Testing

/// A provider that offers card reveal in memory: it counts calls and remembers what reached it, and answers with
/// material whose values the tests then look for in the logs.
final class FakeRevealBackend: Sendable {
    private let state = Mutex<(calls: [String: Int], last: RevealSessionRequest?)>(([:], nil))

    static let ephemeralSecret = "ek_test_fakeRevealSecret9d8c7b6a"
    static let encryptedData = "ENCRYPTEDDATA0fa1b2c3d4e5f6a7b8c9"
    static let encryptedPINBlock = "ENCPINBLOCK11223344556677889900"
    static let pinToken = "5555341244441115"
    static let clientAccessToken = "cat-fake-0b1c2d3e4f"

    func record(_ operation: String, _ request: RevealSessionRequest? = nil) {
        state.withLock { state in
            state.calls[operation, default: 0] += 1
            if let request { state.last = request }
        }
    }

    func count(_ operation: String) -> Int { state.withLock { $0.calls[operation, default: 0] } }
    var total: Int { state.withLock { $0.calls.values.reduce(0, +) } }
    var last: RevealSessionRequest? { state.withLock { $0.last } }
}

struct FakeRevealAdapter: CardReveal {
    let descriptor: ProviderDescriptor
    let backend: FakeRevealBackend

    func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        backend.record("card")
        return Card(
            ref: ref, status: .active, providerStatus: "ACTIVE", type: .virtual, scheme: .visa, lastFour: "4242")
    }

    func revealOffer(for card: CardRef, purpose: RevealPurpose, context: OperationContext) async throws -> RevealOffer {
        backend.record("offer")
        let flow = descriptor.revealFlows[purpose] ?? .secureLink
        return RevealOffer(
            card: card, purpose: purpose, flow: flow,
            publicKey: flow == .encryptedSessionKey
                ? RevealPublicKey(
                    format: "pem", value: "-----BEGIN PUBLIC KEY-----\nFAKE\n-----END PUBLIC KEY-----\n",
                    expires: Date(timeIntervalSince1970: 1_900_000_000)) : nil,
            apiVersion: flow == .clientNonce ? "2024-06-20" : nil, sessionLifetime: .seconds(300)
        )
    }

    func revealSession(_ request: RevealSessionRequest, context: OperationContext) async throws -> RevealSession {
        backend.record("session", request)
        let flow = descriptor.revealFlows[request.purpose] ?? .secureLink
        let material: RevealMaterial
        switch (flow, request.purpose) {
        case (.clientNonce, _):
            material = .ephemeralKey(id: "ephkey_fake1", secret: Secret(FakeRevealBackend.ephemeralSecret))
        case (.encryptedSessionKey, .pinReveal):
            material = .encryptedPINBlock(
                Secret(FakeRevealBackend.encryptedPINBlock), token: Secret(FakeRevealBackend.pinToken))
        case (.encryptedSessionKey, .pinChange): material = .pinChange(.completed)
        case (.encryptedSessionKey, _): material = .encryptedData(Secret(FakeRevealBackend.encryptedData))
        default: material = .clientAccessToken(Secret(FakeRevealBackend.clientAccessToken))
        }
        return RevealSession(
            card: request.card, purpose: request.purpose, flow: flow, material: material,
            expires: Date(timeIntervalSince1970: 1_900_000_300))
    }
}

/// A server over three fake instances (client nonce, encrypted session key, none) and two users, on the real clock.
struct RevealFixture: Sendable {
    static let aliceToken = "alice-reveal-token-5e2b"
    static let bobToken = "bob-reveal-token-9a1c"
    static let nonceCard = "nonce-card"
    static let keyCard = "key-card"
    static let plainCard = "plain-card"
    static let bobCard = "bob-card"

    let backend = FakeRevealBackend()
    /// The server's log, at `logLevel` (critical by default: what `--log-level critical` sets).
    let logs = LogCapture()
    /// The audit trail, on its own logger.
    let audit = LogCapture()
    let server: ProvisioningServer

    init(
        policy: CardRevealPolicy = CardRevealPolicy(), rateLimitPerUser: Int = 0, logLevel: Logger.Level = .critical,
        authenticator: (@Sendable (InMemoryCardDirectory) throws -> any Authenticator)? = nil
    ) throws {
        let backend = self.backend
        func kind(_ name: String, _ flows: [RevealPurpose: RevealFlow]) -> ProviderFactory {
            let descriptor = ProviderDescriptor(
                kind: ProviderKind(name), capabilities: Set([.cardLookup] + flows.keys.map(\.capability)),
                revealFlows: flows)
            return ProviderFactory(
                kind: ProviderKind(name), descriptor: descriptor,
                environments: ["sandbox": URL(string: "https://\(name).example")!], credentials: []
            ) { _ in
                FakeRevealAdapter(descriptor: descriptor, backend: backend)
            }
        }
        let registry = ProviderRegistry([
            kind("fake-nonce", [.cardDetails: .clientNonce]),
            kind(
                "fake-key",
                [
                    .cardDetails: .encryptedSessionKey, .pinReveal: .encryptedSessionKey,
                    .pinChange: .encryptedSessionKey,
                ]),
            kind("fake-plain", [:]),
        ])
        func instance(_ name: String) -> (String, ProviderInstanceConfiguration) {
            (
                name,
                ProviderInstanceConfiguration(
                    name: name, kind: ProviderKind("fake-\(name)"), environment: "sandbox",
                    baseURL: URL(string: "https://\(name).example")!, credentials: [:])
            )
        }
        let logger = logs.logger(label: "provisioning-server.reveal-test", level: logLevel)
        let gateway = try CardGateway(
            configuration: GatewayConfiguration(
                providers: Dictionary(uniqueKeysWithValues: [instance("nonce"), instance("key"), instance("plain")]),
                routes: []),
            registry: registry, transport: ScriptedTransport([]), logger: logger
        )
        let directory = InMemoryCardDirectory(accounts: [
            InMemoryCardDirectory.Account(
                user: AppUser(id: "user-alice"), token: Secret(Self.aliceToken),
                cards: [
                    OwnedCard(
                        id: Self.nonceCard, ref: CardRef(id: "ic_nonce_1"), route: .instance("nonce"),
                        displayName: "Nonce"),
                    OwnedCard(
                        id: Self.keyCard, ref: CardRef(id: "PI_KEY_1"), route: .instance("key"), displayName: "Key"),
                    OwnedCard(
                        id: Self.plainCard, ref: CardRef(id: "plain_1"), route: .instance("plain"), displayName: "Plain"
                    ),
                ]
            ),
            InMemoryCardDirectory.Account(
                user: AppUser(id: "user-bob"), token: Secret(Self.bobToken),
                cards: [
                    OwnedCard(
                        id: Self.bobCard, ref: CardRef(id: "PI_BOB_1"), route: .instance("key"), displayName: "Bob's")
                ]
            ),
        ])
        var configuration = ProvisioningServer.Configuration(
            maxRequestBodyBytes: 2048, rateLimitPerUser: rateLimitPerUser, rateLimitPerAddress: 0)
        configuration.cardReveal = policy
        server = ProvisioningServer(
            gateway: gateway, directory: directory, configuration: configuration,
            authenticator: try authenticator?(directory), logger: logger,
            auditLogger: audit.logger(label: "provisioning-server.audit", level: .notice)
        )
    }

    func withClient(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await server.buildApplication().test(.router, body)
    }

    /// The audit lines written so far.
    var auditRecords: [CapturedLogRecord] { audit.all.filter { $0.metadata["audit"] == "cardReveal" } }
}

@Suite("Provisioning server: card details and PIN", .timeLimit(.minutes(5)))
struct ProvisioningServerCardRevealTests {
    typealias F = RevealFixture

    /// The document's schema `name`, to check answers against (required members present, no member it does not list).
    static func expect(
        _ json: JSONValue, conformsTo name: String, in document: JSONValue,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let schema = try #require(document["components"]?["schemas"]?[name], sourceLocation: sourceLocation)
        let properties = Set(schema["properties"]?.objectValue?.keys.map { $0 } ?? [])
        let required = schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let members = Set(json.objectValue?.keys.map { $0 } ?? [])
        #expect(
            Set(required).isSubset(of: members), "\(name): missing \(Set(required).subtracting(members))",
            sourceLocation: sourceLocation)
        #expect(
            members.isSubset(of: properties), "\(name): undocumented \(members.subtracting(properties))",
            sourceLocation: sourceLocation)
    }

    @Test(
        "offer and session for a client-nonce card: the document's shapes, no-store, the nonce relayed to the provider's card"
    )
    func nonceFlow() async throws {
        let fixture = try F()
        try await fixture.withClient { client in
            let document = try await client.send(.get, "/openapi.json", token: nil).json()
            let offer = try await client.send(
                .get, "/v1/cards/\(F.nonceCard)/reveal/offer?purpose=cardDetails", token: F.aliceToken)
            #expect(offer.status == 200, "\(offer.text)")
            #expect(offer.header("Cache-Control") == "no-store")
            let offerJSON = try offer.json()
            try Self.expect(offerJSON, conformsTo: "RevealOffer", in: document)
            #expect(offerJSON["cardId"] == .string(F.nonceCard))
            #expect(offerJSON["provider"] == .string("nonce"))
            #expect(offerJSON["flow"] == .string("clientNonce"))
            #expect(offerJSON["requires"] == .array([.string("clientNonce")]))
            #expect(offerJSON["apiVersion"] == .string("2024-06-20"))
            #expect(offerJSON["sessionLifetimeSeconds"]?.intValue == 300)
            #expect(offerJSON["mayRequireSCA"] == .bool(false))

            let nonce = "ephkn_pub_relayedNonce123"
            let session = try await client.send(
                .post, "/v1/cards/\(F.nonceCard)/reveal/cardDetails", token: F.aliceToken,
                json: #"{"flow":"clientNonce","clientNonce":"\#(nonce)","apiVersion":"2024-06-20"}"#
            )
            #expect(session.status == 200, "\(session.text)")
            #expect(session.header("Cache-Control") == "no-store")
            let json = try session.json()
            try Self.expect(json, conformsTo: "RevealSession", in: document)
            #expect(json["kind"] == .string("ephemeralKey"))
            #expect(json["ephemeralKeySecret"] == .string(FakeRevealBackend.ephemeralSecret))
            #expect(json["ephemeralKeyId"] == .string("ephkey_fake1"))
            #expect(json["expiresAt"] == .string("2030-03-17T17:51:40Z"))
            // The provider's card id reached the provider, never the public one; the nonce as given.
            let relayed = try #require(fixture.backend.last)
            #expect(relayed.card == CardRef(id: "ic_nonce_1"))
            #expect(relayed.clientNonce?.revealedValue == nonce)
            #expect(relayed.apiVersion == "2024-06-20")
        }
    }

    @Test("encrypted session key: details, PIN reveal and PIN change, each with what its flow takes")
    func encryptedSessionKey() async throws {
        let fixture = try F()
        try await fixture.withClient { client in
            let offer = try await client.send(
                .get, "/v1/cards/\(F.keyCard)/reveal/offer?purpose=pinChange", token: F.aliceToken
            ).json()
            #expect(
                offer["requires"]
                    == .array([.string("encryptedKey"), .string("encryptedPinBlock"), .string("pinToken")]))
            #expect(offer["publicKey"]?["format"] == .string("pem"))
            #expect(offer["publicKey"]?["expiresAt"] != nil)

            let details = try await client.send(
                .post, "/v1/cards/\(F.keyCard)/reveal/cardDetails", token: F.aliceToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJDREVGR0g="}"#)
            #expect(try details.json()["encryptedData"] == .string(FakeRevealBackend.encryptedData))
            let pin = try await client.send(
                .post, "/v1/cards/\(F.keyCard)/reveal/pinReveal", token: F.aliceToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"75989E8881284D10"}"#)
            #expect(try pin.json()["encryptedPinBlock"] == .string(FakeRevealBackend.encryptedPINBlock))
            #expect(try pin.json()["pinToken"] == .string(FakeRevealBackend.pinToken))
            let change = try await client.send(
                .post, "/v1/cards/\(F.keyCard)/reveal/pinChange", token: F.aliceToken,
                json:
                    #"{"flow":"encryptedSessionKey","encryptedKey":"75989E8881284D10","encryptedPinBlock":"63E5060591EF65F4","pinToken":"5555341244441115"}"#
            )
            #expect(change.status == 200, "\(change.text)")
            #expect(try change.json()["pinChangeStatus"] == .string("completed"))
            #expect(fixture.backend.last?.encryptedPINBlock?.revealedValue == "63E5060591EF65F4")
            #expect(fixture.backend.last?.pinToken?.revealedValue == "5555341244441115")
        }
    }

    @Test(
        "another user's card and an unknown card: the same 404, nothing sent; a purpose the card's provider lacks: 409, nothing sent"
    )
    func ownership() async throws {
        let fixture = try F()
        try await fixture.withClient { client in
            let foreign = try await client.send(
                .post, "/v1/cards/\(F.bobCard)/reveal/cardDetails", token: F.aliceToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#)
            let unknown = try await client.send(
                .post, "/v1/cards/no-such-card/reveal/cardDetails", token: F.aliceToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#)
            #expect(foreign.status == 404)
            #expect(unknown.status == 404)
            #expect(try foreign.problem()["detail"] == unknown.problem()["detail"])
            let foreignOffer = try await client.send(
                .get, "/v1/cards/\(F.bobCard)/reveal/offer?purpose=pinReveal", token: F.aliceToken)
            #expect(foreignOffer.status == 404)
            let notOffered = try await client.send(
                .get, "/v1/cards/\(F.plainCard)/reveal/offer?purpose=cardDetails", token: F.aliceToken)
            #expect(notOffered.status == 409)
            #expect(try notOffered.problem()["code"] == .string("unsupported"))
            let notOfferedSession = try await client.send(
                .post, "/v1/cards/\(F.nonceCard)/reveal/pinReveal", token: F.aliceToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#)
            #expect(notOfferedSession.status == 409)
            // Bob reaches his own card.
            let own = try await client.send(
                .post, "/v1/cards/\(F.bobCard)/reveal/cardDetails", token: F.bobToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#
            )
            #expect(own.status == 200)
            let unauthenticated = try await client.send(
                .post, "/v1/cards/\(F.bobCard)/reveal/cardDetails", token: nil,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#)
            #expect(unauthenticated.status == 401)
        }
        #expect(fixture.backend.total == 1)
    }

    @Test("a missing, extra or malformed input is 400 naming the field, before anything is sent")
    func badInput() async throws {
        let fixture = try F()
        try await fixture.withClient { client in
            let cases: [(uri: String, body: String, field: String)] = [
                ("/v1/cards/\(F.keyCard)/reveal/pinReveal", #"{"flow":"encryptedSessionKey"}"#, "encryptedKey"),
                ("/v1/cards/\(F.keyCard)/reveal/pinReveal", "{}", "flow"),
                (
                    "/v1/cards/\(F.keyCard)/reveal/cardDetails",
                    #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD","clientNonce":"n1"}"#, "clientNonce"
                ),
                ("/v1/cards/\(F.nonceCard)/reveal/cardDetails", #"{"flow":"clientNonce"}"#, "clientNonce"),
                (
                    "/v1/cards/\(F.nonceCard)/reveal/cardDetails",
                    #"{"flow":"clientNonce","clientNonce":"bad nonce\n"}"#,
                    "clientNonce"
                ),
                (
                    "/v1/cards/\(F.nonceCard)/reveal/cardDetails", #"{"flow":"clientNonce","clientNonce":""}"#,
                    "clientNonce"
                ),
                (
                    "/v1/cards/\(F.nonceCard)/reveal/cardDetails",
                    #"{"flow":"clientNonce","clientNonce":"n1","apiVersion":"2024 06"}"#, "apiVersion"
                ),
                // Stripe's Elements keys need 2020-03-02 or later (the document's pattern).
                (
                    "/v1/cards/\(F.nonceCard)/reveal/cardDetails",
                    #"{"flow":"clientNonce","clientNonce":"n1","apiVersion":"2020-03-01"}"#, "apiVersion"
                ),
                (
                    "/v1/cards/\(F.keyCard)/reveal/pinChange",
                    #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD","encryptedPinBlock":"AB12","pinToken":"12345"}"#,
                    "pinToken"
                ),
            ]
            for (uri, body, field) in cases {
                let reply = try await client.send(.post, uri, token: F.aliceToken, json: body)
                #expect(reply.status == 400, "\(uri) \(body): \(reply.text)")
                let fields = try reply.problem()["errors"]?.arrayValue?.compactMap { $0["field"]?.stringValue } ?? []
                #expect(fields.contains(field) || (field == "flow" && reply.status == 400), "\(uri) \(body): \(fields)")
                #expect(!reply.text.contains("bad nonce"))
            }
            let unknownMember = try await client.send(
                .post, "/v1/cards/\(F.keyCard)/reveal/cardDetails", token: F.aliceToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD","pan":"4111"}"#)
            #expect(unknownMember.status == 400)
            let unknownPurpose = try await client.send(
                .post, "/v1/cards/\(F.keyCard)/reveal/showpan", token: F.aliceToken, json: #"{"flow":"secureLink"}"#)
            #expect(unknownPurpose.status == 400 || unknownPurpose.status == 404)
        }
        #expect(fixture.backend.total == 0)
    }

    @Test(
        "a schema-valid body for another flow than the card's, or an encrypted-session-key body of another purpose: 409 wrongRevealFlow naming the fields, nothing sent"
    )
    func wrongFlow() async throws {
        let fixture = try F()
        try await fixture.withClient { client in
            let document = try await client.send(.get, "/openapi.json", token: nil).json()
            let cases: [(uri: String, body: String, fields: [String], expected: String)] = [
                // The case the schema allowed and the server refused with 400 before: a nonce for a card without one.
                (
                    "/v1/cards/\(F.keyCard)/reveal/cardDetails", #"{"flow":"clientNonce","clientNonce":"n1"}"#,
                    ["flow", "clientNonce"], "send flow encryptedSessionKey with encryptedKey"
                ),
                (
                    "/v1/cards/\(F.nonceCard)/reveal/cardDetails", #"{"flow":"secureLink"}"#, ["flow"],
                    "send flow clientNonce with clientNonce"
                ),
                (
                    "/v1/cards/\(F.nonceCard)/reveal/cardDetails",
                    #"{"flow":"encryptedPIN","encryptedPinBlock":"QUJD"}"#,
                    ["flow", "encryptedPinBlock"], "send flow clientNonce with clientNonce"
                ),
                // Adyen: the new PIN's block and token go with pinChange, and only there.
                (
                    "/v1/cards/\(F.keyCard)/reveal/pinChange", #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#,
                    ["encryptedPinBlock", "pinToken"],
                    "send flow encryptedSessionKey with encryptedKey, encryptedPinBlock, pinToken"
                ),
                (
                    "/v1/cards/\(F.keyCard)/reveal/pinReveal",
                    #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD","encryptedPinBlock":"AB12","pinToken":"5555341244441115"}"#,
                    ["encryptedPinBlock", "pinToken"], "send flow encryptedSessionKey with encryptedKey"
                ),
            ]
            for (uri, body, fields, expected) in cases {
                let reply = try await client.send(.post, uri, token: F.aliceToken, json: body)
                #expect(reply.status == 409, "\(uri) \(body): \(reply.text)")
                let problem = try reply.problem()
                #expect(problem["type"] == .string("urn:cardgateway:problem:wrongRevealFlow"))
                #expect(problem["detail"]?.stringValue?.contains(expected) == true, "\(problem)")
                let named = problem["errors"]?.arrayValue?.compactMap { $0["field"]?.stringValue } ?? []
                #expect(named == fields, "\(uri) \(body): \(named)")
            }
            // The document says so: the 409 of the session lists this refusal, and the body names its flow.
            let conflict = document["components"]?["responses"]?["Conflict"]?["description"]?.stringValue ?? ""
            #expect(conflict.contains("wrongRevealFlow"))
            let request = document["components"]?["schemas"]?["RevealSessionRequest"]
            #expect(request?["discriminator"]?["propertyName"] == .string("flow"))
            #expect(request?["oneOf"]?.arrayValue?.count == RevealFlow.allCases.count)
        }
        #expect(fixture.backend.total == 0)
        #expect(fixture.auditRecords.count == 5)
        #expect(fixture.auditRecords.allSatisfy { $0.metadata["reason"] == "wrongRevealFlow" })
    }

    @Test("the reveal routes' own rate limit: 429 with Retry-After past it, nothing sent; another user is still served")
    func rateLimit() async throws {
        let fixture = try F(policy: CardRevealPolicy(rateLimitPerUser: 2))
        try await fixture.withClient { client in
            for _ in 0..<2 {
                let reply = try await client.send(
                    .post, "/v1/cards/\(F.keyCard)/reveal/cardDetails", token: F.aliceToken,
                    json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#)
                #expect(reply.status == 200)
            }
            let limited = try await client.send(
                .get, "/v1/cards/\(F.keyCard)/reveal/offer?purpose=cardDetails", token: F.aliceToken)
            #expect(limited.status == 429)
            #expect(try limited.problem()["code"] == .string("rateLimited"))
            #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
            let limitedSession = try await client.send(
                .post, "/v1/cards/\(F.keyCard)/reveal/cardDetails", token: F.aliceToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#)
            #expect(limitedSession.status == 429)
            // Other routes keep the server's general limit (off here): the card itself is still served.
            let bob = try await client.send(
                .post, "/v1/cards/\(F.bobCard)/reveal/cardDetails", token: F.bobToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#
            )
            #expect(bob.status == 200)
        }
        #expect(fixture.backend.count("session") == 3)
        #expect(fixture.backend.count("offer") == 0)
        // The refused session is audited as refused.
        #expect(
            fixture.auditRecords.contains {
                $0.metadata["outcome"] == "refused" && $0.metadata["error.code"] == "rateLimited"
            })
    }

    @Test(
        "each session writes one audit line at notice: user, card, purpose, time, outcome; never what was supplied or returned"
    )
    func audit() async throws {
        let fixture = try F()
        let supplied = ["QUJDREVGR0hJSktMTU5PUA==", "ephkn_pub_auditNonce77", "63E5060591EF65F4AA", "9999888877776666"]
        try await fixture.withClient { client in
            _ = try await client.send(
                .post, "/v1/cards/\(F.keyCard)/reveal/cardDetails", token: F.aliceToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"\#(supplied[0])"}"#)
            _ = try await client.send(
                .post, "/v1/cards/\(F.nonceCard)/reveal/cardDetails", token: F.aliceToken,
                json: #"{"flow":"clientNonce","clientNonce":"\#(supplied[1])"}"#)
            _ = try await client.send(
                .post, "/v1/cards/\(F.keyCard)/reveal/pinReveal", token: F.aliceToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"\#(supplied[0])"}"#)
            _ = try await client.send(
                .post, "/v1/cards/\(F.keyCard)/reveal/pinChange", token: F.aliceToken,
                json:
                    #"{"flow":"encryptedSessionKey","encryptedKey":"\#(supplied[0])","encryptedPinBlock":"\#(supplied[2])","pinToken":"\#(supplied[3])"}"#
            )
            _ = try await client.send(
                .post, "/v1/cards/\(F.bobCard)/reveal/pinReveal", token: F.aliceToken,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"\#(supplied[0])"}"#)
            _ = try await client.send(
                .get, "/v1/cards/\(F.keyCard)/reveal/offer?purpose=cardDetails", token: F.aliceToken)
        }
        let records = fixture.auditRecords
        #expect(records.count == 5, "one line per session attempt, none for the offer: \(records.map(\.rendered))")
        #expect(
            records.allSatisfy {
                $0.level == .notice && $0.metadata["user.id"] == "user-alice" && $0.metadata["at"] != nil
            })
        #expect(
            records.map { $0.metadata["purpose"] } == [
                "cardDetails", "cardDetails", "pinReveal", "pinChange", "pinReveal",
            ])
        #expect(records.map { $0.metadata["card.id"] } == [F.keyCard, F.nonceCard, F.keyCard, F.keyCard, F.bobCard])
        #expect(records.map { $0.metadata["outcome"] } == ["issued", "issued", "issued", "issued", "refused"])
        #expect(records[0].metadata["provider"] == "key" && records[0].metadata["material"] == "encryptedData")
        #expect(records[4].metadata["error.code"] == "notFound")
        #expect(records.allSatisfy { $0.metadata["request.id"] != nil })
        let returned = [
            FakeRevealBackend.ephemeralSecret, FakeRevealBackend.encryptedData, FakeRevealBackend.encryptedPINBlock,
            FakeRevealBackend.pinToken,
        ]
        #expect(fixture.logs.leaks(of: supplied + returned + ["PI_KEY_1", "ic_nonce_1"]) == [])
        #expect(fixture.audit.leaks(of: supplied + returned + ["PI_KEY_1", "ic_nonce_1", F.aliceToken]) == [])
    }

    @Test(
        "every refusal is audited, those before the handler too (no token, a bad token, both rate limits, a bad body, a body too large), with the server's log at critical"
    )
    func auditRefusals() async throws {
        let fixture = try F(policy: CardRevealPolicy(rateLimitPerUser: 2), rateLimitPerUser: 5)
        let session = "/v1/cards/\(F.keyCard)/reveal/cardDetails"
        let valid = #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#
        let secretBody = #"{"flow":"encryptedSessionKey","encryptedKey":"U2VjcmV0S2V5OTk="}"#
        let large = #"{"flow":"encryptedSessionKey","encryptedKey":"\#(String(repeating: "A", count: 4000))"}"#
        let bobSession = "/v1/cards/\(F.bobCard)/reveal/pinReveal"
        // (path, token, body, status, reason, user, card), in the order sent.
        let expected:
            [(uri: String, token: String?, body: String, status: Int, reason: String?, user: String?, card: String)] = [
                // Before the handler: no token, a token no one holds (no user known).
                (session, nil, valid, 401, "unauthenticated", nil, F.keyCard),
                (session, "not-a-token-of-anyone", valid, 401, "unauthenticated", nil, F.keyCard),
                // Bodies the decoding or the null check refuse; a body too large, refused before the routes.
                (session, F.aliceToken, "{}", 400, "invalidRequest", "user-alice", F.keyCard),
                (session, F.aliceToken, #"{"flow":null}"#, 400, "invalidRequest", "user-alice", F.keyCard),
                (session, F.aliceToken, large, 413, "contentTooLarge", nil, F.keyCard),
                // Two sessions served, then the reveal limit (2 a minute), then the server's limit per user (5 a minute:
                // the two refused bodies and the three sessions spent it).
                (session, F.aliceToken, secretBody, 200, nil, "user-alice", F.keyCard),
                (session, F.aliceToken, valid, 200, nil, "user-alice", F.keyCard),
                (session, F.aliceToken, valid, 429, "rateLimited", "user-alice", F.keyCard),
                (session, F.aliceToken, valid, 429, "rateLimited", "user-alice", F.keyCard),
                // Bob: another flow's body, another user's card.
                (
                    bobSession, F.bobToken, #"{"flow":"clientNonce","clientNonce":"n1"}"#, 409, "wrongRevealFlow",
                    "user-bob", F.bobCard
                ),
                ("/v1/cards/\(F.keyCard)/reveal/pinReveal", F.bobToken, valid, 404, "notFound", "user-bob", F.keyCard),
            ]
        try await fixture.withClient { client in
            for step in expected {
                let reply = try await client.send(.post, step.uri, token: step.token, json: step.body)
                #expect(reply.status == step.status, "\(step.uri) \(step.body.prefix(80)): \(reply.text)")
            }
        }
        // The server's own log was at critical: it wrote nothing; the audit trail has every attempt.
        #expect(fixture.logs.all.isEmpty, "\(fixture.logs.text)")
        let records = fixture.auditRecords
        #expect(records.count == expected.count, "\(records.map(\.rendered))")
        for (record, expected) in zip(records, expected) {
            #expect(record.level == .notice)
            #expect(record.metadata["http.status"] == String(expected.status), "\(record.rendered)")
            #expect(record.metadata["outcome"] == (expected.status == 200 ? "issued" : "refused"), "\(record.rendered)")
            #expect(record.metadata["reason"] == expected.reason, "\(record.rendered)")
            #expect(record.metadata["user.id"] == expected.user, "\(record.rendered)")
            #expect(record.metadata["card.id"] == expected.card, "\(record.rendered)")
            #expect(record.metadata["purpose"] != nil && record.metadata["request.id"] != nil)
            #expect(record.metadata["at"] != nil)
        }
        // The served sessions name the instance, flow and material; the wrong flow names the card's flow.
        #expect(records[5].metadata["provider"] == "key" && records[5].metadata["material"] == "encryptedData")
        #expect(records[9].metadata["flow"] == "encryptedSessionKey")
        #expect(fixture.audit.leaks(of: ["U2VjcmV0S2V5OTk=", F.aliceToken, F.bobToken, "not-a-token-of-anyone"]) == [])
        #expect(fixture.backend.count("session") == 2)
    }
}

/// The recent sign-in requirement, with bearer JWTs carrying `auth_time`.
@Suite("Provisioning server: card reveal needs a recent sign-in", .timeLimit(.minutes(5)))
struct ProvisioningServerCardRevealSignInTests {
    typealias F = RevealFixture
    static let issuer = "https://id.example.test/"
    static let audience = "cardgateway-api"

    struct Claims: JWTPayload {
        var iss: String
        var aud: String
        var sub: String
        var exp: Double
        var auth_time: Double?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func fixture(key: ES256PrivateKey, maxAge: Duration? = .seconds(300)) throws -> RevealFixture {
        let parameters = try #require(key.publicKey.parameters)
        let jwks = try JSONSerialization.data(withJSONObject: [
            "keys": [["kty": "EC", "crv": "P-256", "x": parameters.x, "y": parameters.y, "kid": "k1", "alg": "ES256"]]
        ])
        let configuration = JWTBearerAuthenticator.Configuration(
            issuer: issuer, audience: audience, jwksURL: URL(string: "https://id.example.test/jwks.json")!)
        return try RevealFixture(policy: CardRevealPolicy(rateLimitPerUser: 0, maxAuthenticationAge: maxAge)) {
            directory in
            try JWTBearerAuthenticator(configuration: configuration, directory: directory, fetch: { _ in jwks })
        }
    }

    static func token(_ key: ES256PrivateKey, signedInSecondsAgo: Double?) async throws -> String {
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: key, kid: "k1")
        let now = Date().timeIntervalSince1970
        return try await collection.sign(
            Claims(
                iss: issuer, aud: audience, sub: "user-alice", exp: now + 600,
                auth_time: signedInSecondsAgo.map { now - $0 }), kid: "k1"
        )
    }

    @Test(
        "auth_time older than the maximum age, or absent: 401 recentSignInRequired with an RFC 9470 challenge, nothing sent; a recent one is served"
    )
    func recentSignIn() async throws {
        let key = ES256PrivateKey()
        let fixture = try Self.fixture(key: key)
        let stale = try await Self.token(key, signedInSecondsAgo: 900)
        let absent = try await Self.token(key, signedInSecondsAgo: nil)
        let fresh = try await Self.token(key, signedInSecondsAgo: 30)
        try await fixture.withClient { client in
            for token in [stale, absent] {
                let session = try await client.send(
                    .post, "/v1/cards/\(F.keyCard)/reveal/cardDetails", token: token,
                    json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#)
                #expect(session.status == 401)
                let problem = try session.problem()
                #expect(problem["type"] == .string("urn:cardgateway:problem:recentSignInRequired"))
                #expect(problem["detail"]?.stringValue?.contains("300 seconds") == true)
                let challenge = session.header("WWW-Authenticate") ?? ""
                #expect(
                    challenge.contains("error=\"insufficient_user_authentication\"")
                        && challenge.contains("max_age=300"), "\(challenge)")
                let offer = try await client.send(
                    .get, "/v1/cards/\(F.keyCard)/reveal/offer?purpose=cardDetails", token: token)
                #expect(offer.status == 401)
                // The other routes do not ask for a recent sign-in.
                let card = try await client.send(.get, "/v1/cards/\(F.keyCard)/tokens", token: token)
                #expect(card.status != 401)
            }
            #expect(fixture.backend.total == 0 || fixture.backend.count("session") == 0)
            let served = try await client.send(
                .post, "/v1/cards/\(F.keyCard)/reveal/cardDetails", token: fresh,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#)
            #expect(served.status == 200, "\(served.text)")
        }
        #expect(fixture.backend.count("session") == 1)
        #expect(fixture.backend.count("offer") == 0)
        #expect(fixture.auditRecords.filter { $0.metadata["error.code"] == "recentSignInRequired" }.count == 2)
    }

    @Test("without a maximum age, a token without auth_time is served")
    func noRequirement() async throws {
        let key = ES256PrivateKey()
        let fixture = try Self.fixture(key: key, maxAge: nil)
        let absent = try await Self.token(key, signedInSecondsAgo: nil)
        try await fixture.withClient { client in
            let session = try await client.send(
                .post, "/v1/cards/\(F.keyCard)/reveal/cardDetails", token: absent,
                json: #"{"flow":"encryptedSessionKey","encryptedKey":"QUJD"}"#)
            #expect(session.status == 200)
        }
    }
}

/// The demo server on the embedded simulators: the routes over the real adapters, the test acting as the app.
@Suite("Provisioning server: card reveal on the simulators", .timeLimit(.minutes(5)))
struct ProvisioningServerCardRevealSimulatorTests {
    @Test(
        "Adyen PIN reveal through the server: the app's key, a block only the app deciphers; Stripe details: a key bound to the nonce; another user's card: 404"
    )
    func endToEnd() async throws {
        try await EmbeddedSimulators().run { running in
            let logs = LogCapture()
            let server = try DemoServer.make(running: running, logger: logs.logger(label: "demo-server"))
            try await server.buildApplication().test(.router) { client in
                let token = DemoUsers.aliceToken
                let offer = try await client.send(.get, "/v1/cards/travel/reveal/offer?purpose=pinReveal", token: token)
                #expect(offer.status == 200, "\(offer.text)")
                let app = try AdyenSimulatorApp.session(
                    publicKeyPEM: try #require(offer.json()["publicKey"]?["value"]?.stringValue))
                let session = try await client.send(
                    .post, "/v1/cards/travel/reveal/pinReveal", token: token,
                    json: #"{"flow":"encryptedSessionKey","encryptedKey":"\#(app.encryptedKey)"}"#)
                #expect(session.status == 200, "\(session.text)")
                #expect(session.header("Cache-Control") == "no-store")
                let json = try session.json()
                let block = try #require(json["encryptedPinBlock"]?.stringValue.flatMap(ByteEncoding.decodeHex))
                let pin = try AdyenSimulatorPINBlock.decipher(
                    block, token: try #require(json["pinToken"]?.stringValue), key: app.key)
                #expect(pin == AdyenSimulator.Seed.initialPIN(of: AdyenSimulator.Seed.activeVisaID))

                let nonce = "ephkn_pub_server" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
                let stripe = try await client.send(
                    .post, "/v1/cards/business/reveal/cardDetails", token: token,
                    json: #"{"flow":"clientNonce","clientNonce":"\#(nonce)"}"#)
                #expect(stripe.status == 200, "\(stripe.text)")
                #expect(try stripe.json()["ephemeralKeySecret"]?.stringValue?.hasPrefix("ek_") == true)

                // Bob's Marqeta card is not Alice's.
                let foreign = try await client.send(
                    .post, "/v1/cards/rewards/reveal/cardDetails", token: token, json: #"{"flow":"clientAccessToken"}"#)
                #expect(foreign.status == 404)
                #expect(
                    logs.leaks(of: [
                        app.encryptedKey, nonce, json["encryptedPinBlock"]?.stringValue ?? "-",
                        json["pinToken"]?.stringValue ?? "-",
                    ]) == [])
            }
        }
    }
}
