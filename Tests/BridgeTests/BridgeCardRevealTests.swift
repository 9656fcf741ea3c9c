import BridgeSimulator
import CardGateway
import CardGatewayAsyncHTTPClient
import CardGatewayBridge
import CardGatewaySimulation
import CardGatewayTesting
import Crypto
import Foundation
import HTTPTypes
import Logging
import SharedTestSupport
import Testing

/// A gateway over the Bridge simulator, and a test acting as the front end beside it.
struct BridgeRevealWorld: Sendable {
    typealias Seed = BridgeSimulator.Seed
    let handle: SimulatorHandle
    let simulator: BridgeSimulator
    let gateway: CardGateway
    let wire: WireRecorder
    let target = RouteTarget.key(RouteKey(issuer: "bridge"))

    static func run<R: Sendable>(
        logger: Logger = OperationContext.noopLogger, _ body: @Sendable (BridgeRevealWorld) async throws -> R
    ) async throws -> R {
        let simulator = BridgeSimulator(clock: SimulationClock(fixed: BridgeLive.start))
        return try await withSimulator(simulator) { handle in
            let json = """
                {"providers":{"bridge-sim":{"kind":"bridge","baseURL":"\(handle.baseURL.absoluteString)",
                  "credentials":{"apiKey":"literal:\(Seed.apiKey)"},"maxAttempts":2}},
                 "routes":[{"when":{"issuer":"bridge"},"use":"bridge-sim"}]}
                """
            let registry = ProviderRegistry([.bridge])
            let configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
            let wire = WireRecorder(AsyncHTTPClientTransport())
            let gateway = try CardGateway(
                configuration: configuration, registry: registry, transport: wire, logger: logger)
            return try await body(BridgeRevealWorld(handle: handle, simulator: simulator, gateway: gateway, wire: wire))
        }
    }

    /// What the front end keeps (secret and timestamp) and what it sends through the backend (the nonce), as Bridge's
    /// guide derives it.
    struct FrontEndNonce: Sendable {
        var secret = UUID().uuidString + UUID().uuidString
        var timestamp: Int64 = Int64(BridgeLive.start.timeIntervalSince1970 * 1000)
        var nonce: Secret { Secret(BridgeSimulator.clientNonce(secret: secret, timestamp: timestamp)) }
    }

    func session(
        _ card: String, nonce: Secret?, context: OperationContext = OperationContext()
    ) async throws -> RevealSession {
        try await gateway.revealSession(
            RevealSessionRequest(card: BridgeLive.ref(card), purpose: .cardDetails, clientNonce: nonce), via: target,
            context: context
        )
    }

    func pinSession(_ card: String, context: OperationContext = OperationContext()) async throws -> RevealSession {
        try await gateway.revealSession(
            RevealSessionRequest(card: BridgeLive.ref(card), purpose: .pinChange), via: target, context: context)
    }

    struct Reply: Sendable {
        var status: Int
        var body: Data
        var json: [String: JSONValue]? { (try? JSONValue.parse(body))?.objectValue }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The front end's read with the key and the secret and timestamp the nonce came from (the simulator's stand-in).
    func read(key: String?, secret: String?, timestamp: Int64?) async throws -> Reply {
        var query: [String] = []
        if let secret { query.append("client_secret=\(secret)") }
        if let timestamp { query.append("client_timestamp=\(timestamp)") }
        var fields = HTTPFields()
        if let key { fields[.authorization] = "Bearer \(key)" }
        let path = BridgeSimulator.cardDetailsPath + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        return try await get(path, fields)
    }

    /// The cardholder's browser opening the PIN frame's URL.
    func open(_ url: String) async throws -> Reply {
        let components = try #require(URLComponents(string: url))
        #expect(components.host == "127.0.0.1")
        return try await get(
            components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? ""), HTTPFields())
    }

    private func get(_ path: String, _ fields: HTTPFields) async throws -> Reply {
        let request = HTTPRequest(
            method: .get, scheme: "http", authority: "127.0.0.1:\(handle.port)", path: path, headerFields: fields)
        let response = try await AsyncHTTPClientTransport().send(request, body: nil, timeout: .seconds(30))
        return Reply(status: response.response.status.code, body: response.body)
    }
}

@Suite("Bridge card details (client nonce) and PIN change (secure frame)", .timeLimit(.minutes(5)))
struct BridgeCardRevealTests {
    typealias Seed = BridgeSimulator.Seed

    @Test("the descriptor declares card details by client nonce and PIN change by secure link, no PIN reveal")
    func descriptor() {
        #expect(BridgeProvider.standardDescriptor.revealFlows == [.cardDetails: .clientNonce, .pinChange: .secureLink])
        #expect(BridgeProvider.standardDescriptor.capabilities.isSuperset(of: [.cardDetailsReveal, .pinChange]))
        #expect(!BridgeProvider.standardDescriptor.capabilities.contains(.pinReveal))
    }

    @Test("the front end reads the seeded card's number with the session's key and the secret behind its nonce")
    func frontEndReadsTheCard() async throws {
        try await BridgeRevealWorld.run { world in
            let card = Seed.activeVisa
            let offer = try await world.gateway.revealOffer(
                for: BridgeLive.ref(card), purpose: .cardDetails, via: world.target)
            #expect(offer.flow == .clientNonce)
            #expect(offer.requires == [.clientNonce])
            #expect(offer.sessionLifetime == .seconds(300))
            #expect(offer.provider == "bridge-sim")
            #expect(world.wire.exchanges.last?.method == "GET")

            let front = BridgeRevealWorld.FrontEndNonce()
            let before = Date()
            let session = try await world.session(card, nonce: front.nonce)
            #expect(session.flow == .clientNonce)
            #expect(session.material.kind == "ephemeralKey")
            #expect(session.material.ephemeralKeyID == nil)
            let key = try #require(session.material.ephemeralKeySecret?.revealedValue)
            let expires = try #require(session.expires)
            #expect(expires >= before.addingTimeInterval(299) && expires <= Date().addingTimeInterval(300))

            // On the wire: POST …/ephemeral_keys, JSON {"client_nonce"}, Api-Key, Idempotency-Key, Content-Type.
            let sent = try #require(world.wire.exchanges.last)
            #expect(sent.method == "POST")
            #expect(sent.path == "/v0/customers/\(Seed.customerID)/card_accounts/\(card)/ephemeral_keys")
            let body = try #require(sent.requestBody.flatMap { try? JSONValue.parse($0).objectValue })
            #expect(body == ["client_nonce": .string(front.nonce.revealedValue)])
            let entry = try #require(world.handle.journal.last)
            #expect(entry.method == "POST" && entry.path.hasSuffix("/ephemeral_keys"))
            #expect(entry.header("content-type") == "application/json")
            #expect(entry.header("api-key") == JournalEntry.maskedValue)
            #expect((entry.header("idempotency-key") ?? "").count >= 16)

            // The front end reads what the backend never saw.
            let read = try await world.read(key: key, secret: front.secret, timestamp: front.timestamp)
            #expect(read.status == 200, "\(read.text.count)")
            let account = try #require(world.simulator.cardAccount(card))
            #expect(read.json?["card_number"] == .string(account.pan))
            let code = try #require(world.simulator.securityCode(of: card))
            #expect(read.json?["card_security_code"] == .string(code))
            #expect(read.json?["expiry"] == .string("10/29"))

            // One-time: the same key again is refused.
            let again = try await world.read(key: key, secret: front.secret, timestamp: front.timestamp)
            #expect(again.status == 401)
            #expect(again.json?["code"] == .string("ephemeral_key_used"))
        }
    }

    @Test("the simulator refuses another secret or timestamp, another card's key, an unknown key and an expired key")
    func refusals() async throws {
        try await BridgeRevealWorld.run { world in
            let front = BridgeRevealWorld.FrontEndNonce()
            let key = try #require(
                try await world.session(Seed.activeVisa, nonce: front.nonce).material.ephemeralKeySecret?.revealedValue)

            let wrongSecret = try await world.read(key: key, secret: "not-the-secret", timestamp: front.timestamp)
            #expect(wrongSecret.status == 401)
            #expect(wrongSecret.json?["code"] == .string("nonce_mismatch"))
            let wrongTime = try await world.read(key: key, secret: front.secret, timestamp: front.timestamp + 1)
            #expect(wrongTime.status == 401)
            let missing = try await world.read(key: key, secret: nil, timestamp: nil)
            #expect(missing.status == 400)
            let unknown = try await world.read(key: "not-a-key", secret: front.secret, timestamp: front.timestamp)
            #expect(unknown.status == 401)
            let noKey = try await world.read(key: nil, secret: front.secret, timestamp: front.timestamp)
            #expect(noKey.status == 401)

            // Another card's key, with that card's own nonce, shows that card only (keys are bound to one account).
            let other = BridgeRevealWorld.FrontEndNonce()
            let otherKey = try #require(
                try await world.session(Seed.activeMastercard, nonce: other.nonce).material.ephemeralKeySecret?
                    .revealedValue)
            let crossed = try await world.read(key: otherKey, secret: front.secret, timestamp: front.timestamp)
            #expect(crossed.status == 401)
            let own = try await world.read(key: otherKey, secret: other.secret, timestamp: other.timestamp)
            let otherPAN = try #require(world.simulator.cardAccount(Seed.activeMastercard)?.pan)
            #expect(own.json?["card_number"] == .string(otherPAN))

            // Expiry on the simulator's clock: five minutes.
            world.simulator.simulationClock.advance(by: BridgeSimulator.ephemeralKeyLifetime)
            let expired = try await world.read(key: key, secret: front.secret, timestamp: front.timestamp)
            #expect(expired.status == 401)
            #expect(expired.json?["code"] == .string("ephemeral_key_expired"))
        }
    }

    @Test("the PIN frame's URL works once and expires")
    func pinFrame() async throws {
        try await BridgeRevealWorld.run { world in
            let offer = try await world.gateway.revealOffer(
                for: BridgeLive.ref(Seed.frozenByCustomer), purpose: .pinChange, via: world.target)
            #expect(offer.flow == .secureLink)
            #expect(offer.requires.isEmpty)
            #expect(offer.sessionLifetime == nil)

            let session = try await world.pinSession(Seed.activeVisa)
            #expect(session.flow == .secureLink)
            #expect(session.material.kind == "secureLink")
            #expect(session.expires == nil)
            let url = try #require(session.material.secureLink?.revealedValue)
            let sent = try #require(world.wire.exchanges.last)
            #expect(sent.method == "POST")
            #expect(sent.path == "/v0/customers/\(Seed.customerID)/card_accounts/\(Seed.activeVisa)/pin")
            #expect(sent.requestBody == nil || sent.requestBody?.isEmpty == true)
            let entry = try #require(world.handle.journal.last)
            #expect(entry.path.hasSuffix("/pin"))
            #expect((entry.header("idempotency-key") ?? "").count >= 16)

            let opened = try await world.open(url)
            #expect(opened.status == 200)
            #expect(opened.text.contains("Set your PIN"))
            let reopened = try await world.open(url)
            #expect(reopened.status == 410)

            let later = try #require(try await world.pinSession(Seed.activeVisa).material.secureLink?.revealedValue)
            #expect(later != url)
            world.simulator.simulationClock.advance(by: BridgeSimulator.pinLinkLifetime)
            #expect(try await world.open(later).status == 410)
        }
    }

    @Test(
        "the offer and the session refuse pending and inactive accounts; no PIN reveal; unknown accounts are not found")
    func stateRefusals() async throws {
        try await BridgeRevealWorld.run { world in
            for card in [Seed.pendingVisa, Seed.inactiveMastercard] {
                for purpose in [RevealPurpose.cardDetails, .pinChange] {
                    let refused = await gatewayError {
                        _ = try await world.gateway.revealOffer(
                            for: BridgeLive.ref(card), purpose: purpose, via: world.target)
                    }
                    #expect(refused?.code == .invalidCardState, "\(card) \(purpose)")
                }
                let key = await gatewayError {
                    _ = try await world.session(card, nonce: BridgeRevealWorld.FrontEndNonce().nonce)
                }
                #expect(
                    key?.code == .invalidCardState || key?.code == .invalidRequest,
                    "\(card): \(String(describing: key?.code))")
                let pin = await gatewayError { _ = try await world.pinSession(card) }
                #expect(pin?.code == .invalidCardState || pin?.code == .invalidRequest)
            }
            let before = world.handle.journal.count
            let reveal = await gatewayError {
                _ = try await world.gateway.revealOffer(
                    for: BridgeLive.ref(Seed.activeVisa), purpose: .pinReveal, via: world.target)
            }
            #expect(reveal?.code == .unsupported)
            #expect(world.handle.journal.count == before)
            let unknown = await gatewayError {
                _ = try await world.session(
                    "ca00000000004000800000000000ffff", nonce: BridgeRevealWorld.FrontEndNonce().nonce)
            }
            #expect(unknown?.code == .notFound)
            let otherCustomers = await gatewayError { _ = try await world.pinSession(Seed.otherCustomerActiveVisa) }
            #expect(otherCustomers?.code == .notFound)
        }
    }

    @Test("a missing input, an input the flow does not take, or a card without customer is refused before any request")
    func refusedBeforeSending() async throws {
        try await BridgeRevealWorld.run { world in
            let missing = await gatewayError { _ = try await world.session(Seed.activeVisa, nonce: nil) }
            #expect(missing?.code == .invalidRequest)
            let empty = await gatewayError { _ = try await world.session(Seed.activeVisa, nonce: Secret("")) }
            #expect(empty?.code == .invalidRequest)
            let pinWithNonce = await gatewayError {
                _ = try await world.gateway.revealSession(
                    RevealSessionRequest(
                        card: BridgeLive.ref(Seed.activeVisa), purpose: .pinChange, clientNonce: Secret("n")),
                    via: world.target
                )
            }
            #expect(pinWithNonce?.code == .invalidRequest)
            let noCustomer = await gatewayError {
                _ = try await world.gateway.revealSession(
                    RevealSessionRequest(
                        card: CardRef(id: Seed.activeVisa), purpose: .cardDetails,
                        clientNonce: BridgeRevealWorld.FrontEndNonce().nonce), via: world.target
                )
            }
            #expect(noCustomer?.code == .invalidRequest)
            let badID = await gatewayError {
                _ = try await world.session("../\(Seed.activeVisa)", nonce: BridgeRevealWorld.FrontEndNonce().nonce)
            }
            #expect(badID?.code == .invalidRequest)
            #expect(world.handle.journal.count == 0)
            #expect(world.wire.count == 0)
        }
    }

    @Test("a repeat makes a new key or URL, even under the same operation key: nothing is replayed")
    func repeatMakesANewSession() async throws {
        try await BridgeRevealWorld.run { world in
            let context = OperationContext(idempotencyKey: "reveal-once")
            let front = BridgeRevealWorld.FrontEndNonce()
            let first = try await world.session(Seed.activeVisa, nonce: front.nonce, context: context)
            let second = try await world.session(Seed.activeVisa, nonce: front.nonce, context: context)
            #expect(first.material.ephemeralKeySecret != second.material.ephemeralKeySecret)
            let pin1 = try await world.pinSession(Seed.activeVisa, context: context)
            let pin2 = try await world.pinSession(Seed.activeVisa, context: context)
            #expect(pin1.material.secureLink != pin2.material.secureLink)
            let keys = world.handle.journal.entries(method: "POST").compactMap { $0.header("idempotency-key") }
            #expect(keys.count == 4 && Set(keys).count == 4)
        }
    }

    @Test(
        "scripted: the spec's PIN URL example becomes the session; a URL that is not https or an answer without key is refused"
    )
    func scriptedAnswers() async throws {
        let example = try #require(
            try BridgeSpec.load()["components"]?["schemas"]?["CardPinUpdateResponse"]?["properties"]?["url"]?[
                "example"]?.stringValue
        )
        // The session step reads the card account first (as the offer does), then asks for the frame.
        let account = ScriptedReply.json(200, BridgeFixtures.cardAccountJSON())
        let transport = ScriptedTransport([account, .json(200, #"{"url":"\#(example)"}"#)])
        let pin = RevealSessionRequest(card: BridgeFixtures.ref, purpose: .pinChange)
        let session = try await BridgeFixtures.provider(transport).revealSession(pin, context: OperationContext())
        #expect(session.material.secureLink?.revealedValue == example)
        #expect(transport.requests.count == 2)
        #expect(transport.requests.first?.request.method == .get)
        let sent = try #require(transport.requests.last)
        #expect(sent.request.method == .post)
        #expect(
            sent.pathWithoutQuery
                == "/v0/customers/\(BridgeFixtures.customer)/card_accounts/\(BridgeFixtures.cardAccount)/pin")
        #expect(sent.body == nil || sent.body?.isEmpty == true)
        #expect(sent.header("Api-Key") == BridgeFixtures.apiKey)
        #expect(!(sent.header("Idempotency-Key") ?? "").isEmpty)

        for body in [
            #"{"url":"http://secure.example.com/update-pin?token=1"}"#, #"{"url":"javascript:alert(1)"}"#, #"{}"#,
        ] {
            let error = await gatewayError {
                _ = try await BridgeFixtures.provider(ScriptedTransport([account, .json(200, body)])).revealSession(
                    pin, context: OperationContext())
            }
            #expect(error?.code == .invalidResponse)
        }
        let nonce = Secret("scripted-nonce-0123456789")
        let details = RevealSessionRequest(card: BridgeFixtures.ref, purpose: .cardDetails, clientNonce: nonce)
        let keyTransport = ScriptedTransport([account, .json(200, #"{"ephemeral_key":"scripted-ephemeral-key"}"#)])
        let keySession = try await BridgeFixtures.provider(keyTransport).revealSession(
            details, context: OperationContext())
        #expect(keySession.material.ephemeralKeySecret?.revealedValue == "scripted-ephemeral-key")
        #expect(keyTransport.requests.last?.jsonBody == .object(["client_nonce": .string(nonce.revealedValue)]))
        #expect(keyTransport.requests.last?.header("Content-Type") == "application/json")
        let empty = await gatewayError {
            _ = try await BridgeFixtures.provider(ScriptedTransport([account, .json(200, #"{"ephemeral_key":""}"#)]))
                .revealSession(details, context: OperationContext())
        }
        #expect(empty?.code == .invalidResponse)
        #expect(!(empty?.message.contains(nonce.revealedValue) ?? true))
    }

    @Test("nothing sensitive in the journal, the logs, errors or descriptions")
    func redaction() async throws {
        let capture = LogCapture()
        let logger = capture.logger(level: .trace)
        let (needles, journal) = try await BridgeRevealWorld.run(logger: logger) {
            world -> ([String], [JournalEntry]) in
            let context = OperationContext(logger: logger, requestID: "req-reveal")
            var needles: [String] = [Seed.apiKey]
            var described: [String] = []
            let front = BridgeRevealWorld.FrontEndNonce()
            needles += [front.secret, front.nonce.revealedValue]
            let offer = try await world.gateway.revealOffer(
                for: BridgeLive.ref(Seed.activeVisa), purpose: .cardDetails, via: world.target, context: context)
            let request = RevealSessionRequest(
                card: BridgeLive.ref(Seed.activeVisa), purpose: .cardDetails, clientNonce: front.nonce)
            let session = try await world.gateway.revealSession(request, via: world.target, context: context)
            let key = try #require(session.material.ephemeralKeySecret?.revealedValue)
            needles.append(key)
            let read = try await world.read(key: key, secret: front.secret, timestamp: front.timestamp)
            needles += [read.json?["card_number"]?.stringValue, read.json?["card_security_code"]?.stringValue]
                .compactMap { $0 }
            let pin = try await world.pinSession(Seed.activeVisa, context: context)
            let url = try #require(pin.material.secureLink?.revealedValue)
            let token = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "token" }?.value)
            needles += [url, token]
            #expect(try await world.open(url).status == 200)
            described += [
                String(describing: offer), String(describing: request), String(reflecting: request),
                String(describing: session),
                String(reflecting: session), String(describing: pin), String(reflecting: pin),
                String(describing: pin.material),
            ]
            // Failures: a pending account (Bridge's refusal through the session), an unknown one.
            let errors = [
                await gatewayError {
                    _ = try await world.session(Seed.pendingVisa, nonce: front.nonce, context: context)
                },
                await gatewayError {
                    _ = try await world.session(
                        "ca00000000004000800000000000ffff", nonce: front.nonce, context: context)
                },
            ]
            for error in errors {
                let error = try #require(error)
                described += [error.description, String(reflecting: error), error.message]
            }
            #expect(leakedNeedles(needles, in: described.joined(separator: "\n")).isEmpty, "leaked into descriptions")
            return (needles, world.handle.journal.entries())
        }
        #expect(
            journal.contains { $0.path == BridgeSimulator.cardDetailsPath }
                && journal.contains { $0.path == BridgeSimulator.pinFramePath })
        let encoder = JSONEncoder()
        let journalText = try journal.map {
            String(decoding: try encoder.encode($0), as: UTF8.self) + " " + $0.path + ($0.query ?? "")
        }.joined(separator: "\n")
        // A three-digit security code counts only by its name (leakedNeedles): random ids hold such numbers by chance.
        #expect(leakedNeedles(needles, in: journalText).isEmpty, "leaked into the journal")
        #expect(!capture.all.isEmpty, "the flow logged something to check")
        #expect(leakedNeedles(needles, in: capture.text).isEmpty, "leaked into logs")
    }
}

/// The session step on its own (a client may skip the offer), a call that may have reached Bridge, and the nonce in
/// errors and logs.
@Suite("Bridge reveal sessions", .timeLimit(.minutes(5)))
struct BridgeRevealSessionTests {
    typealias Seed = BridgeSimulator.Seed

    static func posts(_ world: BridgeRevealWorld, _ suffix: String) -> [JournalEntry] {
        world.handle.journal.entries(method: "POST", pathContains: "/card_accounts/").filter {
            $0.path.hasSuffix(suffix)
        }
    }

    @Test("the session step refuses a pending or inactive account before asking Bridge for a key or a PIN frame")
    func sessionChecksTheAccount() async throws {
        try await BridgeRevealWorld.run { world in
            for card in [Seed.pendingVisa, Seed.inactiveMastercard] {
                let key = await gatewayError {
                    _ = try await world.session(card, nonce: BridgeRevealWorld.FrontEndNonce().nonce)
                }
                #expect(key?.code == .invalidCardState, "\(card)")
                #expect(key?.mayHaveReachedProvider == false)
                let pin = await gatewayError { _ = try await world.pinSession(card) }
                #expect(pin?.code == .invalidCardState, "\(card)")
            }
            #expect(Self.posts(world, "/ephemeral_keys").isEmpty)
            #expect(Self.posts(world, "/pin").isEmpty)
            #expect(world.handle.journal.entries(method: "GET", pathContains: "/card_accounts/").count == 4)
            // A frozen account is served.
            _ = try await world.session(Seed.frozenByCustomer, nonce: BridgeRevealWorld.FrontEndNonce().nonce)
            #expect(Self.posts(world, "/ephemeral_keys").count == 1)
        }
    }

    @Test(
        "a key request dropped after Bridge read it is repeated under the same Idempotency-Key, which Bridge answers with the original response"
    )
    func droppedKeyRequestIsRepeatedUnderTheSameKey() async throws {
        try await BridgeRevealWorld.run { world in
            world.handle.faults.inject(
                FaultRule(count: 1, pathPrefix: "/v0/customers/", method: "POST", action: .dropConnection))
            let front = BridgeRevealWorld.FrontEndNonce()
            let session = try await world.session(Seed.activeVisa, nonce: front.nonce)
            let posts = Self.posts(world, "/ephemeral_keys")
            #expect(posts.count == 2)
            #expect(posts.first?.handling == .faulted)
            let keys = posts.compactMap { $0.header("idempotency-key") }
            #expect(keys.count == 2 && Set(keys).count == 1, "the repeat carries the first attempt's key")
            // The key works once for the front end.
            let key = try #require(session.material.ephemeralKeySecret?.revealedValue)
            let read = try await world.read(key: key, secret: front.secret, timestamp: front.timestamp)
            #expect(read.status == 200)
        }
    }

    @Test("Bridge's idempotence: the same Idempotency-Key gets the original ephemeral key back, a new key a new one")
    func repeatedKeyReplaysTheOriginal() async throws {
        try await BridgeRevealWorld.run { world in
            let path =
                "/v0/customers/\(Seed.customerID)/card_accounts/\(Seed.activeVisa)/ephemeral_keys"
            let body = Data(#"{"client_nonce":"\#(BridgeRevealWorld.FrontEndNonce().nonce.revealedValue)"}"#.utf8)
            func post(_ key: String) async throws -> String? {
                var fields = HTTPFields()
                fields[HTTPField.Name("Api-Key")!] = Seed.apiKey
                fields[HTTPField.Name("Idempotency-Key")!] = key
                fields[.contentType] = "application/json"
                let request = HTTPRequest(
                    method: .post, scheme: "http", authority: "127.0.0.1:\(world.handle.port)", path: path,
                    headerFields: fields)
                let response = try await AsyncHTTPClientTransport().send(request, body: body, timeout: .seconds(30))
                #expect(response.response.status.code == 200 || response.response.status.code == 201)
                return try JSONValue.parse(response.body)["ephemeral_key"]?.stringValue
            }
            let first = try #require(try await post("reveal-attempt-1"))
            let repeated = try await post("reveal-attempt-1")
            #expect(repeated == first)
            let other = try await post("reveal-attempt-2")
            #expect(other != nil && other != first)
        }
    }

    @Test("a client nonce Bridge's error echoes reaches neither the error nor the logs")
    func nonceNeverInErrorsOrLogs() async throws {
        let capture = LogCapture()
        let logger = capture.logger(level: .trace)
        // Short nonces, which no general rule for opaque words would catch.
        let nonces = ["nonce-a1b2c3", "n0nce"]
        try await BridgeRevealWorld.run(logger: logger) { world in
            let context = OperationContext(logger: logger, requestID: "req-nonce")
            for nonce in nonces {
                world.handle.faults.inject(
                    FaultRule(
                        count: 1, pathPrefix: "/v0/customers/", method: "POST",
                        action: .status(400, retryAfterSeconds: nil, message: "client_nonce \(nonce) is not valid")))
                let error = try #require(
                    await gatewayError {
                        _ = try await world.session(Seed.activeVisa, nonce: Secret(nonce), context: context)
                    })
                #expect(error.code == .invalidRequest)
                let texts = [
                    error.description, String(reflecting: error), error.message,
                    error.fieldErrors.map(\.description).joined(),
                ]
                #expect(!texts.joined(separator: "\n").contains(nonce), "leaked into the error")
            }
        }
        #expect(!capture.all.isEmpty, "the flow logged something to check")
        #expect(nonces.allSatisfy { !capture.text.contains($0) }, "leaked into logs")
    }
}
