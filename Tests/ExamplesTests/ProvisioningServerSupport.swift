import CardGateway
import CardGatewayTesting
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import HummingbirdTesting
import ProvisioningServerApp
import Synchronization
import ServiceLifecycle
import Testing

/// The in-memory provider behind every fake instance: it counts calls per operation, remembers the last
/// provisioning input, and fails operations on a card when told to.
final class FakeBackend: Sendable {
    private struct State {
        var calls: [String: Int] = [:]
        var failures: [String: CardGatewayError] = [:]
        var lastInput: ProvisioningInput?
        var lastConfirmation: ProvisioningConfirmation?
        var lastSession: ClientSessionRequest?
        var lastSCA: SCAAuthorization?
        var lastIdempotencyKey: String?
    }

    private let state = Mutex(State())

    static let webhookSecret = Data("fake-webhook-secret-6b1f0e".utf8)
    static let ephemeralKeyJSON =
        #"{"id":"ephkey_1Fake","object":"ephemeral_key","associated_objects":[{"type":"issuing.card","id":"ic_3003"}],"secret":"ek_test_YWNjdF8xRmFrZVNlY3JldEtleQ","api_version":"2020-08-27","expires":1700003600}"#

    /// Counts a call; throws the failure set for `cardID`, if any.
    func record(_ operation: String, cardID: String? = nil) throws {
        let failure: CardGatewayError? = state.withLock { state in
            state.calls[operation, default: 0] += 1
            return cardID.flatMap { state.failures[$0] }
        }
        if let failure { throw failure }
    }

    func fail(cardID: String, with error: CardGatewayError?) {
        state.withLock { $0.failures[cardID] = error }
    }

    func count(_ operation: String) -> Int { state.withLock { $0.calls[operation, default: 0] } }
    var totalCalls: Int { state.withLock { $0.calls.values.reduce(0, +) } }

    func remember(input: ProvisioningInput) { state.withLock { $0.lastInput = input } }
    func remember(confirmation: ProvisioningConfirmation) { state.withLock { $0.lastConfirmation = confirmation } }
    func remember(session: ClientSessionRequest) { state.withLock { $0.lastSession = session } }
    /// What the operation context carried: the solved SCA challenge and the (user-scoped) idempotency key.
    func remember(context: OperationContext) {
        state.withLock { state in
            state.lastSCA = context.sca
            state.lastIdempotencyKey = context.idempotencyKey
        }
    }
    var lastSCA: SCAAuthorization? { state.withLock { $0.lastSCA } }
    var lastIdempotencyKey: String? { state.withLock { $0.lastIdempotencyKey } }
    var lastInput: ProvisioningInput? { state.withLock { $0.lastInput } }
    var lastConfirmation: ProvisioningConfirmation? { state.withLock { $0.lastConfirmation } }
    var lastSession: ClientSessionRequest? { state.withLock { $0.lastSession } }

    /// The signature header value the fake webhook verifier expects.
    static func signature(_ body: Data) -> String {
        ByteEncoding.hex(MessageAuthentication.hmacSHA256(key: webhookSecret, message: body))
    }
}

/// An adapter implementing every capability in memory; its descriptor decides what the gateway routes to it.
struct FakeAdapter: CardLookup, WalletProvisioning, StoredCredentials, WebhookVerifying {
    let descriptor: ProviderDescriptor
    let backend: FakeBackend

    func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        try backend.record("card", cardID: ref.id)
        return Card(
            ref: ref, status: .active, providerStatus: "ACTIVE", type: .virtual, scheme: .visa, lastFour: "4242",
            expiry: CardExpiry(month: 12, year: 2030), bin: "42424242", program: "FAKE-PROGRAM", currency: "GBP",
            cardholderName: "Alice Example",
            walletTokens: [
                WalletToken(
                    id: "tok_1", wallet: .applePay, status: .active, providerStatus: "ACTIVE",
                    deviceAccountReference: "DAR-1", walletID: "W-1", lastFour: "9876", network: .visa)
            ]
        )
    }

    func offer(for card: CardRef, wallet: Wallet, context: OperationContext) async throws -> ProvisioningOffer {
        try backend.record("offer", cardID: card.id)
        return ProvisioningOffer(
            card: card, wallet: wallet, eligible: true, flow: nil, cardholderName: "Alice Example", lastFour: "4242",
            network: .visa,
            primaryAccountIdentifier: "PAI-\(card.id)", expiry: CardExpiry(month: 12, year: 2030)
        )
    }

    func provision(_ request: ProvisioningRequest, context: OperationContext) async throws -> ProvisioningResponse {
        try backend.record("provision", cardID: request.card.id)
        backend.remember(input: request.input)
        backend.remember(context: context)
        switch request.input.kind {
        case .applePay:
            return .applePay(
                ApplePayPayload(
                    activationData: SensitiveData(Data("activation-\(request.card.id)".utf8)),
                    encryptedPassData: SensitiveData(Data("encrypted-pass-\(request.card.id)".utf8)),
                    ephemeralPublicKey: SensitiveData(Data("ephemeral-public-key".utf8)), network: .visa
                ))
        case .googlePay:
            return .googlePay(
                GooglePayPayload(
                    opaquePaymentCard: SensitiveData(Data("opaque-card-\(request.card.id)".utf8)), network: .visa,
                    tokenProvider: "VISA"))
        case .samsungPay:
            return .samsungPay(
                SamsungPayPayload(
                    extraProvisionPayload: SensitiveData(Data("extra-payload-\(request.card.id)".utf8)), network: .visa,
                    cardType: "DEBIT", tokenProvider: "VISA"
                ))
        case .issuerSDK:
            guard let output = request.input.issuerSDKOutput else {
                return .issuerSDKInput(SensitiveData(Data("start-\(request.card.id)".utf8)))
            }
            return .issuerSDKInput(SensitiveData(Data("next-".utf8) + output.revealedBytes))
        default:
            return .ephemeralKey(
                EphemeralKey(
                    id: "ephkey_1Fake", rawJSON: SensitiveData(Data(FakeBackend.ephemeralKeyJSON.utf8)), created: nil,
                    expires: Date(timeIntervalSince1970: 1_700_003_600),
                    apiVersion: request.input.issuerSDKAPIVersion ?? ""
                ))
        }
    }

    func confirm(_ confirmation: ProvisioningConfirmation, context: OperationContext) async throws {
        try backend.record("confirm", cardID: confirmation.card.id)
        backend.remember(confirmation: confirmation)
    }

    func clientSession(_ request: ClientSessionRequest, context: OperationContext) async throws -> ClientSession {
        try backend.record("clientSession")
        backend.remember(session: request)
        if request.intent.kind == .reuse {
            return ClientSession(
                token: Secret(Fixture.reuseSessionJWT), issuedAt: Date(timeIntervalSince1970: 0), securityCodeLength: 3)
        }
        return ClientSession(token: Secret(Fixture.storeSessionJWT), issuedAt: Date(timeIntervalSince1970: 0))
    }

    func verifyResult(_ token: Secret, context: OperationContext) async throws -> StoredCredential {
        try backend.record("verifyResult")
        if token.revealedValue == Fixture.declinedResultJWT {
            throw CardGatewayError(.declined, "the issuer declined the check")
        }
        return StoredCredential(
            reference: "56-9-1001", maskedPAN: "411111######1111", brand: "VISA", scheme: .visa,
            created: Date(timeIntervalSince1970: 1_700_000_000))
    }

    func charge(_ request: ChargeRequest, context: OperationContext) async throws -> ChargeResult {
        try backend.record("charge")
        return ChargeResult(
            transactionReference: "56-9-1002", parentReference: request.reference, status: .authorised,
            amount: request.amount, authCode: "OK", providerStatus: "0")
    }

    func verify(_ delivery: WebhookDelivery, now: Date) throws -> [GatewayEvent] {
        try backend.record("webhook")
        guard let name = HTTPField.Name("X-Fake-Signature"),
            let given = delivery.headers[name].flatMap(ByteEncoding.decodeHex),
            MessageAuthentication.verifyHMACSHA256(
                signature: given, key: FakeBackend.webhookSecret, message: delivery.body)
        else {
            throw CardGatewayError.signatureInvalid("the X-Fake-Signature header does not match the body")
        }
        let json = try JSONValue.parse(delivery.body)
        guard let id = json["id"]?.stringValue, let cardID = json["card"]?.stringValue,
            let status = json["status"]?.stringValue
        else {
            throw CardGatewayError.invalidRequest("the event lacks id, card or status")
        }
        let change = CardStatusChange(
            card: CardRef(id: cardID), oldStatus: nil, newStatus: CardStatus(rawValue: status) ?? .unknown,
            providerOldStatus: nil, providerNewStatus: status)
        return [
            GatewayEvent(
                id: id, providerKind: descriptor.kind, occurredAt: nil, providerType: "card.updated",
                event: .cardStatusChanged(change))
        ]
    }
}

/// Records what `onEvent` received.
final class EventRecorder: Sendable {
    private let events = Mutex<[GatewayEvent]>([])
    func append(_ event: GatewayEvent) { events.withLock { $0.append(event) } }
    var all: [GatewayEvent] { events.withLock { $0 } }
}

/// A clock the tests move by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
    func now() -> Date { current.withLock { $0 } }
    func advance(seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// A server over four fake instances and two users.
///
/// - `payload` (encrypted payload for both wallets, webhooks), reached by routing `issuer = payload-bank`
/// - `relay` (issuer SDK relay for both wallets, webhooks), named directly
/// - `key` (issuer SDK key for Apple Pay only), named directly
/// - `cof` (stored credentials, webhooks)
struct Fixture: Sendable {
    static let aliceToken = "alice-secret-token-7f3a9c51"
    static let bobToken = "bob-secret-token-c41d2e88"
    static let storeSessionJWT = "eyJhbGciOiJIUzI1NiJ9.eyJjcmVkZW50aWFsc29uZmlsZSI6IjEifQ.c3RvcmUtc2lnbmF0dXJl"
    static let reuseSessionJWT = "eyJhbGciOiJIUzI1NiJ9.eyJjcmVkZW50aWFsc29uZmlsZSI6IjIifQ.cmV1c2Utc2lnbmF0dXJl"
    static let resultJWT = "eyJhbGciOiJIUzI1NiJ9.eyJyZXN1bHQiOiJvayJ9.cmVzdWx0LXNpZ25hdHVyZQ"
    static let declinedResultJWT = "eyJhbGciOiJIUzI1NiJ9.eyJyZXN1bHQiOiJkZWNsaW5lZCJ9.ZGVjbGluZWQ"

    /// Cards by public id, with the provider card ids behind them.
    static let payloadCard = "card-payload"
    static let relayCard = "card-relay"
    static let keyCard = "card-key"
    static let bobCard = "card-bob"

    let backend = FakeBackend()
    let logs = LogCapture()
    let clock = TestClock()
    let events = EventRecorder()
    let directory: InMemoryCardDirectory
    let server: ProvisioningServer

    init(
        configuration: ProvisioningServer.Configuration = ProvisioningServer.Configuration(
            storedCredentialRoute: .instance("cof")),
        observability: GatewayObservability = .bootstrapped,
        authenticator: (@Sendable (InMemoryCardDirectory) throws -> any Authenticator)? = nil
    ) throws {
        let backend = self.backend
        func kind(
            _ name: String, _ capabilities: Set<Capability>, _ flows: [Wallet: ProvisioningFlow]
        ) -> ProviderFactory {
            let descriptor = ProviderDescriptor(
                kind: ProviderKind(name), capabilities: capabilities, provisioningFlows: flows)
            return ProviderFactory(
                kind: ProviderKind(name), descriptor: descriptor,
                environments: ["sandbox": URL(string: "https://\(name).example")!], credentials: []
            ) { _ in FakeAdapter(descriptor: descriptor, backend: backend) }
        }
        let registry = ProviderRegistry([
            kind(
                "fake-payload", [.cardLookup, .walletProvisioning, .webhooks],
                [.applePay: .encryptedPayload, .googlePay: .encryptedPayload]),
            kind(
                "fake-relay", [.cardLookup, .walletProvisioning, .webhooks],
                [.applePay: .issuerSDKRelay, .googlePay: .issuerSDKRelay]),
            kind("fake-key", [.cardLookup, .walletProvisioning], [.applePay: .issuerSDKKey]),
            kind("fake-cof", [.storedCredentials, .webhooks], [:]),
        ])
        func instance(_ name: String, _ kind: String) -> (String, ProviderInstanceConfiguration) {
            (
                name,
                ProviderInstanceConfiguration(
                    name: name, kind: ProviderKind(kind), environment: "sandbox",
                    baseURL: URL(string: "https://\(kind).example")!, credentials: [:])
            )
        }
        let configurationDocument = GatewayConfiguration(
            providers: Dictionary(uniqueKeysWithValues: [
                instance("payload", "fake-payload"), instance("relay", "fake-relay"), instance("key", "fake-key"),
                instance("cof", "fake-cof"),
            ]),
            routes: [Route(when: Route.Conditions(issuers: ["payload-bank"]), use: "payload")]
        )
        let logger = logs.logger(label: "provisioning-server.test")
        // The fakes never send anything; a transport that has no replies makes any stray request visible.
        let gateway = try CardGateway(
            configuration: configurationDocument, registry: registry, transport: ScriptedTransport([]), logger: logger,
            observability: observability
        )

        let payloadRoute = RouteTarget.key(RouteKey(issuer: "payload-bank"))
        directory = InMemoryCardDirectory(accounts: [
            InMemoryCardDirectory.Account(
                user: AppUser(id: "user-alice", displayName: "Alice"), token: Secret(Self.aliceToken),
                cards: [
                    OwnedCard(
                        id: Self.payloadCard, ref: CardRef(id: "pc_1001", customer: "cust_alice"), route: payloadRoute,
                        displayName: "Everyday"),
                    OwnedCard(
                        id: Self.relayCard, ref: CardRef(id: "PI_2002"), route: .instance("relay"),
                        displayName: "Travel"),
                    OwnedCard(
                        id: Self.keyCard, ref: CardRef(id: "ic_3003"), route: .instance("key"), displayName: "Virtual",
                        wallets: [.applePay]),
                ]
            ),
            InMemoryCardDirectory.Account(
                user: AppUser(id: "user-bob"), token: Secret(Self.bobToken),
                cards: [
                    OwnedCard(
                        id: Self.bobCard, ref: CardRef(id: "pc_9009", customer: "cust_bob"), route: payloadRoute,
                        displayName: "Bob's")
                ]
            ),
        ])
        let events = self.events
        let clock = self.clock
        server = ProvisioningServer(
            gateway: gateway, directory: directory, configuration: configuration,
            authenticator: try authenticator?(directory), logger: logger,
            now: { clock.now() },
            onEvent: { event in events.append(event) }
        )
    }

    /// Runs `body` with the server listening on 127.0.0.1 (a free port), over the network; stops it afterwards.
    func withLiveServer(_ body: @Sendable (_ port: Int) async throws -> Void) async throws {
        try await withLiveProvisioningServer(server, logger: logs.logger(label: "service-group", level: .info), body)
    }

    /// Runs `body` against the router, without a network.
    func withClient(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await server.buildApplication().test(.router, body)
    }
}

/// A response, read whole.
struct Reply: Sendable {
    var status: Int
    var headers: HTTPFields
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    func json() throws -> JSONValue { try JSONValue.parse(body) }
    func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
    var contentType: String? { headers[.contentType] }

    /// The problem body, after checking the media type and the required members.
    func problem(sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        #expect(contentType == "application/problem+json", sourceLocation: sourceLocation)
        let json = try json()
        #expect(json["type"]?.stringValue != nil, sourceLocation: sourceLocation)
        #expect(json["title"]?.stringValue != nil, sourceLocation: sourceLocation)
        #expect(json["status"]?.intValue == status, sourceLocation: sourceLocation)
        #expect(json["detail"]?.stringValue != nil, sourceLocation: sourceLocation)
        return json
    }
}

extension TestClientProtocol {
    /// Sends a request as Alice unless told otherwise (`token: nil` sends no Authorization header).
    func send(
        _ method: HTTPRequest.Method, _ uri: String, token: String? = Fixture.aliceToken, json: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> Reply {
        var fields = HTTPFields()
        if let token { fields[.authorization] = "Bearer \(token)" }
        if json != nil { fields[.contentType] = "application/json" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields[HTTPField.Name(name)!] = value }
        let response = try await execute(
            uri: uri, method: method, headers: fields, body: json.map { ByteBuffer(string: $0) })
        return Reply(
            status: response.status.code, headers: response.headers, body: Data(response.body.readableBytesView))
    }

    /// Sends raw bytes with the given headers and no Authorization.
    func sendRaw(
        _ method: HTTPRequest.Method, _ uri: String, body: Data, headers: [String: String]
    ) async throws -> Reply {
        var fields = HTTPFields()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields[HTTPField.Name(name)!] = value }
        let response = try await execute(uri: uri, method: method, headers: fields, body: ByteBuffer(bytes: body))
        return Reply(
            status: response.status.code, headers: response.headers, body: Data(response.body.readableBytesView))
    }
}

extension Data {
    var base64: String { base64EncodedString() }
}

extension String {
    var base64: String { Data(utf8).base64EncodedString() }
}

/// Runs `body` with `server` listening on 127.0.0.1 (a free port), over the network; stops it afterwards.
func withLiveProvisioningServer(
    _ server: ProvisioningServer, logger: Logger = OperationContext.noopLogger,
    _ body: @Sendable (_ port: Int) async throws -> Void
) async throws {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let service = ProvisioningServerService(server: server, host: "127.0.0.1", port: 0) { port in
        continuation.yield(port)
    }
    let group = ServiceGroup(services: [service], logger: logger)
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        do {
            try await body(port)
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}
