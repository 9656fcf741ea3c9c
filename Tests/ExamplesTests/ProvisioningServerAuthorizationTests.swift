import AsyncHTTPClient
import CardGateway
import CardGatewayTesting
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ProvisioningServerApp
import ServiceLifecycle
import Synchronization
import Testing

/// An adapter for the server's authorization route only: it reads `{"id", "amount", "currency", "mcc", "country",
/// "adjustable"}` authenticated by an `X-Test-Key` header, and answers `{"approved", "amount"?, "reason"?}` with
/// 200 or 402 and an `X-Test-Answer` header, so that a test sees on the wire that the server passes the adapter's
/// status, headers and body through byte for byte. The providers' own adapters are tested end to end in their rooms
/// and below (``ProvisioningServerProviderAuthorizationTests``).
private struct TestAuthorizationProvider: AuthorizationResponding {
    static let kind = ProviderKind("test-auth")
    static let key = "right-key-5d1c"
    static let descriptor = ProviderDescriptor(
        kind: kind, capabilities: [.authorizations], authorizationDeadline: .seconds(60))
    var descriptor: ProviderDescriptor { Self.descriptor }

    struct Message: Codable {
        var id: String
        var amount: Int64
        var currency: String
        var mcc: String?
        var country: String?
        var adjustable: Bool?
    }

    func authorization(from delivery: WebhookDelivery, now: Date) throws -> ProviderAuthorization {
        let given = delivery.headers[HTTPField.Name("X-Test-Key")!] ?? ""
        guard ConstantTime.equals(Array(given.utf8), Array(Self.key.utf8)) else {
            throw CardGatewayError.signatureInvalid("the X-Test-Key header is wrong")
        }
        guard let message = try? JSONDecoder().decode(Message.self, from: delivery.body) else {
            throw CardGatewayError(.invalidRequest, "the authorization request cannot be read")
        }
        let request = AuthorizationRequest(
            id: message.id, providerKind: Self.kind, kind: .authorization, card: CardRef(id: "card_7"),
            amount: Money(minorUnits: message.amount, currency: message.currency),
            amountAdjustable: message.adjustable ?? false,
            merchant: .init(name: "Corner Shop", categoryCode: message.mcc, country: message.country, city: "Leeds"))
        return ProviderAuthorization(request: request)
    }

    func answer(
        _ decision: AuthorizationDecision, to authorization: ProviderAuthorization
    ) throws
        -> AuthorizationAnswer
    {
        var object: [String: String] = ["approved": decision.approved ? "yes" : "no"]
        if let amount = decision.amount { object["amount"] = "\(amount.minorUnits)" }
        if let reason = decision.reason { object["reason"] = reason.rawValue }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Test-Answer")!] = "v1"
        headers[.contentType] = "application/json; charset=utf-8"
        return AuthorizationAnswer(
            status: decision.approved ? .ok : HTTPResponse.Status(code: 402), headers: headers,
            body: try encoder.encode(object))
    }

    static var factory: ProviderFactory {
        ProviderFactory(
            kind: kind, descriptor: descriptor, environments: ["sandbox": URL(string: "https://test-auth.example")!],
            credentials: []
        ) { _ in TestAuthorizationProvider() }
    }
}

/// An instance that takes webhooks but not authorizations (the route's 404).
private struct WebhookOnlyProvider: WebhookVerifying {
    static let kind = ProviderKind("test-hooks")
    var descriptor: ProviderDescriptor { ProviderDescriptor(kind: Self.kind, capabilities: [.webhooks]) }
    func verify(_ delivery: WebhookDelivery, now: Date) throws -> [GatewayEvent] {
        throw CardGatewayError.signatureInvalid("never authentic")
    }
    static var factory: ProviderFactory {
        ProviderFactory(
            kind: kind, descriptor: ProviderDescriptor(kind: kind, capabilities: [.webhooks]),
            environments: ["sandbox": URL(string: "https://test-hooks.example")!], credentials: []
        ) { _ in WebhookOnlyProvider() }
    }
}

/// Opens once; every waiter resumes then.
final class AuthorizationGate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// The integrator's decider endpoint, as a small Hummingbird app on 127.0.0.1: it records every body it gets and
/// answers as told (JSON, a status, or nothing until the gate opens).
final class DeciderEndpoint: Sendable {
    enum Behaviour: Sendable {
        case answer(status: Int, body: String)
        /// Waits for the gate (opened when the test ends): a decider that never answers in time.
        case hang
    }

    private let state = Mutex<(behaviour: Behaviour, bodies: [Data])>((.answer(status: 200, body: "{}"), []))
    let gate = AuthorizationGate()

    init(_ behaviour: Behaviour) { state.withLock { $0.behaviour = behaviour } }

    var calls: Int { state.withLock { $0.bodies.count } }
    var bodies: [Data] { state.withLock { $0.bodies } }
    func set(_ behaviour: Behaviour) { state.withLock { $0.behaviour = behaviour } }

    /// Runs `body` with the endpoint listening at `http://127.0.0.1:<port>/decide`; stops it afterwards.
    func run(_ body: @Sendable (_ url: URL) async throws -> Void) async throws {
        let router = Hummingbird.Router()
        router.post("/decide") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1024 * 1024)
            let behaviour = self.state.withLock { state in
                state.bodies.append(Data(bytes.readableBytesView))
                return state.behaviour
            }
            switch behaviour {
            case .answer(let status, let text):
                return Response(
                    status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
            case .hang:
                await self.gate.wait()
                return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"approved":true}"#)))
            }
        }
        try await withLiveApplication(router: router) { port in
            defer { self.gate.open() }
            try await body(URL(string: "http://127.0.0.1:\(port)/decide")!)
        }
    }
}

/// Runs `router` on 127.0.0.1, a free port, for the duration of `body`.
func withLiveApplication(
    router: Hummingbird.Router<BasicRequestContext>, _ body: @Sendable (_ port: Int) async throws -> Void
) async throws {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
        logger: OperationContext.noopLogger)
    let group = ServiceGroup(services: [app], logger: OperationContext.noopLogger)
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

/// A provisioning server over the test provider (`auth`, answering authorizations; `hooks`, webhooks only), one local
/// rule (MCC 7995 declined), and an `HTTPAuthorizationDecider` at the decider endpoint's URL.
private struct AuthorizationServerFixture {
    let server: ProvisioningServer
    let registry: PrometheusCollectorRegistry

    init(deciderURL: URL?, budgetMilliseconds: Int? = nil, maxBodyBytes: Int = 1024 * 1024) throws {
        let providerRegistry = ProviderRegistry([TestAuthorizationProvider.factory, WebhookOnlyProvider.factory])
        var auth = ProviderInstanceConfiguration(
            name: "auth", kind: TestAuthorizationProvider.kind, environment: "sandbox",
            baseURL: URL(string: "https://test-auth.example")!, credentials: [:])
        auth.authorizations = AuthorizationSettings(
            standIn: .decline, budget: budgetMilliseconds.map { .milliseconds($0) })
        let hooks = ProviderInstanceConfiguration(
            name: "hooks", kind: WebhookOnlyProvider.kind, environment: "sandbox",
            baseURL: URL(string: "https://test-hooks.example")!, credentials: [:])
        var configuration = GatewayConfiguration(providers: ["auth": auth, "hooks": hooks], routes: [])
        configuration.authorizationRules = [AuthorizationRule(name: "no gambling", merchantCategories: ["7995"])]
        registry = PrometheusCollectorRegistry()
        let gateway = try CardGateway(
            configuration: configuration, registry: providerRegistry, transport: ScriptedTransport([]),
            observability: GatewayObservability(metrics: ProvisioningServer.prometheusFactory(registry: registry)))
        var serverConfiguration = ProvisioningServer.Configuration(
            maxWebhookBodyBytes: maxBodyBytes, metrics: registry)
        serverConfiguration.authorizationDecider = try deciderURL.map { try HTTPAuthorizationDecider(url: $0) }
        server = ProvisioningServer(
            gateway: gateway, directory: InMemoryCardDirectory(accounts: []), configuration: serverConfiguration)
    }

    func run(_ body: @Sendable (_ base: String) async throws -> Void) async throws {
        try await withLiveProvisioningServer(server) { port in try await body("http://127.0.0.1:\(port)") }
    }
}

/// One HTTP exchange with the live server.
private func post(
    _ url: String, body: String, headers: [String: String] = ["X-Test-Key": TestAuthorizationProvider.key]
) async throws -> Reply {
    var request = HTTPClientRequest(url: url)
    request.method = .POST
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    request.body = .bytes(ByteBuffer(string: body))
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    let bytes = try await response.body.collect(upTo: 1024 * 1024)
    var fields = HTTPFields()
    for header in response.headers { fields.append(HTTPField(name: HTTPField.Name(header.name)!, value: header.value)) }
    return Reply(status: Int(response.status.code), headers: fields, body: Data(bytes.readableBytesView))
}

private func get(_ url: String) async throws -> String {
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
    return String(buffer: try await response.body.collect(upTo: 4 * 1024 * 1024))
}

private func message(id: String, amount: Int = 1250, mcc: String = "5411", adjustable: Bool = false) -> String {
    #"{"id":"\#(id)","amount":\#(amount),"currency":"USD","mcc":"\#(mcc)","country":"GB","adjustable":\#(adjustable)}"#
}

@Suite("provisioning-server: POST /authorizations/{instance} and --authorization-decider", .timeLimit(.minutes(2)))
struct ProvisioningServerAuthorizationTests {
    @Test("an approval: the decider gets the normalised JSON, the provider gets the adapter's answer byte for byte")
    func approve() async throws {
        let decider = DeciderEndpoint(.answer(status: 200, body: #"{"approved": true}"#))
        try await decider.run { url in
            let fixture = try AuthorizationServerFixture(deciderURL: url)
            try await fixture.run { base in
                let reply = try await post("\(base)/authorizations/auth", body: message(id: "auth_approve_1"))
                #expect(reply.status == 200)
                #expect(reply.text == #"{"approved":"yes"}"#)
                #expect(reply.header("X-Test-Answer") == "v1")
                #expect(reply.contentType == "application/json; charset=utf-8")
                #expect(decider.calls == 1)
                let sent = try JSONValue.parse(try #require(decider.bodies.first))
                #expect(sent["id"]?.stringValue == "auth_approve_1")
                #expect(sent["provider"]?.stringValue == "test-auth")
                #expect(sent["instance"]?.stringValue == "auth")
                #expect(sent["kind"]?.stringValue == "authorization")
                #expect(sent["card"]?["id"]?.stringValue == "card_7")
                #expect(sent["amount"]?["currency"]?.stringValue == "USD")
                #expect(sent["amount"]?["minor"]?.intValue == 1250)
                #expect(sent["amountAdjustable"] == .bool(false))
                #expect(sent["merchant"]?["name"]?.stringValue == "Corner Shop")
                #expect(sent["merchant"]?["categoryCode"]?.stringValue == "5411")
                #expect(sent["merchant"]?["country"]?.stringValue == "GB")
                let deadline = try #require(sent["deadline"]?.stringValue)
                let parsed = try #require(
                    try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(deadline))
                // The deadline is the budget's end: this test provider's 60 s less the default 500 ms margin, from
                // when the request arrived (a deadline long enough that a loaded machine cannot miss it: the exact
                // budget is CardGatewayTests' AuthorizationTests, on an injected clock).
                #expect(parsed.timeIntervalSinceNow > 30 && parsed.timeIntervalSinceNow < 60)
            }
        }
    }

    @Test("a decline with the decider's reason is the adapter's 402; a reduced amount where the request allows it")
    func declineAndReduce() async throws {
        let decider = DeciderEndpoint(
            .answer(status: 200, body: #"{"approved": false, "reason": "insufficientFunds"}"#))
        try await decider.run { url in
            let fixture = try AuthorizationServerFixture(deciderURL: url)
            try await fixture.run { base in
                let declined = try await post("\(base)/authorizations/auth", body: message(id: "auth_decline_1"))
                #expect(declined.status == 402)
                #expect(declined.text == #"{"approved":"no","reason":"insufficientFunds"}"#)

                decider.set(
                    .answer(status: 200, body: #"{"approved": true, "amount": {"currency": "USD", "minor": 1000}}"#))
                let reduced = try await post(
                    "\(base)/authorizations/auth", body: message(id: "auth_reduce_1", adjustable: true))
                #expect(reduced.status == 200)
                #expect(reduced.text == #"{"amount":"1000","approved":"yes"}"#)

                // The same reduced amount for a request that cannot take one: the stand-in (decline), not a guess.
                let refused = try await post(
                    "\(base)/authorizations/auth", body: message(id: "auth_reduce_2", adjustable: false))
                #expect(refused.status == 402)
                #expect(refused.text == #"{"approved":"no","reason":"other"}"#)
                #expect(decider.calls == 3)
            }
        }
    }

    @Test(
        "a decider that does not answer within the budget: the stand-in leaves at the budget, well before the deadline")
    func slowDecider() async throws {
        let decider = DeciderEndpoint(.hang)
        try await decider.run { url in
            let fixture = try AuthorizationServerFixture(deciderURL: url, budgetMilliseconds: 1_000)
            try await fixture.run { base in
                let started = ContinuousClock.now
                let reply = try await post("\(base)/authorizations/auth", body: message(id: "auth_slow_1"))
                let elapsed = ContinuousClock.now - started
                #expect(reply.status == 402)
                #expect(reply.text == #"{"approved":"no","reason":"other"}"#)
                // Asked once at most: on a loaded machine the budget may end before the request reaches the decider.
                #expect(decider.calls <= 1)
                // Not before the budget; when after it is the machine's load (the stand-in is exact on an injected
                // clock: CardGatewayTests' AuthorizationTests).
                #expect(elapsed >= .milliseconds(1_000))
                let metrics = try await get("\(base)/metrics")
                #expect(metrics.contains("cardgateway_authorization_stand_ins"), "\(metrics.prefix(2000))")
                let line = metrics.split(separator: "\n").first {
                    $0.hasPrefix("cardgateway_authorizations{") && $0.contains(#"decided_by="standIn""#)
                }
                #expect(line?.contains(#"outcome="declined""#) == true, "\(line ?? "no line")")
                #expect(line?.hasSuffix(" 1") == true)
            }
        }
    }

    @Test(
        "a decider that answers garbage, another status or a bad amount: the stand-in",
        arguments: [
            (200, "not json"), (500, #"{"approved": true}"#), (200, #"{"approved": "yes"}"#),
            (200, #"{"approved": true, "amount": {"currency": "usd", "minor": 5}}"#),
        ])
    func garbage(status: Int, body: String) async throws {
        let decider = DeciderEndpoint(.answer(status: status, body: body))
        try await decider.run { url in
            let fixture = try AuthorizationServerFixture(deciderURL: url)
            try await fixture.run { base in
                let reply = try await post(
                    "\(base)/authorizations/auth", body: message(id: "auth_garbage_1", adjustable: true))
                #expect(reply.status == 402)
                #expect(reply.text == #"{"approved":"no","reason":"other"}"#)
                #expect(decider.calls == 1)
            }
        }
    }

    @Test("wrong credentials: 401 with a challenge, and the decider is never called")
    func wrongCredentials() async throws {
        let decider = DeciderEndpoint(.answer(status: 200, body: #"{"approved": true}"#))
        try await decider.run { url in
            let fixture = try AuthorizationServerFixture(deciderURL: url)
            try await fixture.run { base in
                for headers in [["X-Test-Key": "wrong-key"], [:]] {
                    let reply = try await post(
                        "\(base)/authorizations/auth", body: message(id: "auth_401"), headers: headers)
                    #expect(reply.status == 401)
                    #expect(try reply.problem()["code"]?.stringValue == "signatureInvalid")
                    #expect(reply.header("WWW-Authenticate") != nil)
                }
                #expect(decider.calls == 0)
            }
        }
    }

    @Test("a repeated delivery gets the same answer, byte for byte, and the decider is asked once")
    func repeatedDelivery() async throws {
        let decider = DeciderEndpoint(
            .answer(status: 200, body: #"{"approved": true, "amount": {"currency": "USD", "minor": 700}}"#))
        try await decider.run { url in
            let fixture = try AuthorizationServerFixture(deciderURL: url)
            try await fixture.run { base in
                let body = message(id: "auth_repeat_1", adjustable: true)
                let first = try await post("\(base)/authorizations/auth", body: body)
                decider.set(.answer(status: 200, body: #"{"approved": false, "reason": "suspectedFraud"}"#))
                let second = try await post("\(base)/authorizations/auth", body: body)
                #expect(first.status == 200)
                #expect(first.text == #"{"amount":"700","approved":"yes"}"#)
                #expect(second.status == first.status)
                #expect(second.body == first.body)
                #expect(decider.calls == 1)
            }
        }
    }

    @Test("a local rule declines before the decider; without a decider the rules are the whole policy")
    func rules() async throws {
        let decider = DeciderEndpoint(.answer(status: 200, body: #"{"approved": true}"#))
        try await decider.run { url in
            let fixture = try AuthorizationServerFixture(deciderURL: url)
            try await fixture.run { base in
                let reply = try await post("\(base)/authorizations/auth", body: message(id: "auth_rule_1", mcc: "7995"))
                #expect(reply.status == 402)
                #expect(reply.text == #"{"approved":"no","reason":"merchantCategoryBlocked"}"#)
                #expect(decider.calls == 0)
            }
        }
        let alone = try AuthorizationServerFixture(deciderURL: nil)
        try await alone.run { base in
            let approved = try await post("\(base)/authorizations/auth", body: message(id: "auth_rule_2"))
            #expect(approved.status == 200)
            let declined = try await post("\(base)/authorizations/auth", body: message(id: "auth_rule_3", mcc: "7995"))
            #expect(declined.status == 402)
        }
    }

    @Test(
        "404 for an unknown instance and one without the capability, 400 for an unreadable request, 413 past the limit")
    func refusals() async throws {
        let decider = DeciderEndpoint(.answer(status: 200, body: #"{"approved": true}"#))
        try await decider.run { url in
            let fixture = try AuthorizationServerFixture(deciderURL: url, maxBodyBytes: 2048)
            try await fixture.run { base in
                for instance in ["nowhere", "hooks"] {
                    let reply = try await post("\(base)/authorizations/\(instance)", body: message(id: "auth_404"))
                    #expect(reply.status == 404, "\(instance)")
                    _ = try reply.problem()
                }
                let unreadable = try await post("\(base)/authorizations/auth", body: #"{"id": 5}"#)
                #expect(unreadable.status == 400)
                #expect(try unreadable.problem()["code"]?.stringValue == "invalidRequest")
                let large = try await post(
                    "\(base)/authorizations/auth", body: #"{"pad":""# + String(repeating: "x", count: 4096) + #""}"#)
                #expect(large.status == 413)
                #expect(decider.calls == 0)
            }
        }
    }

    @Test("the server's document has the route, its responses and the decider contract's two shapes")
    func document() throws {
        let document = try JSONValue.parse(ProvisioningServer.openAPIDocument)
        let operation = try #require(document["paths"]?["/authorizations/{instance}"]?["post"])
        #expect(operation["operationId"]?.stringValue == "authorize")
        #expect(operation["security"] == .array([]))
        for status in ["200", "402", "400", "401", "404", "413", "500"] {
            #expect(operation["responses"]?[status] != nil, "\(status)")
        }
        let schemas = document["components"]?["schemas"]
        #expect(schemas?["AuthorizationDeciderRequest"]?["required"] != nil)
        let reasons = schemas?["AuthorizationDeciderDecision"]?["properties"]?["reason"]?["enum"]
        #expect(reasons == .array(AuthorizationDeclineReason.allCases.map { .string($0.rawValue) }))
    }
}

@Suite("the decider contract's JSON, both ways", .timeLimit(.minutes(1)))
struct AuthorizationDeciderWireTests {
    @Test("the request: every member the contract names, absent ones left out, the deadline in RFC 3339 UTC")
    func request() throws {
        var request = AuthorizationRequest(
            id: "iauth_1", providerKind: ProviderKind("stripe"), instance: "us-issuing", kind: .incremental,
            card: CardRef(id: "ic_1"), amount: Money(minorUnits: 1250, currency: "USD"), amountAdjustable: true,
            merchant: .init(name: "Corner Shop", categoryCode: "5411", country: "US"))
        request.deadline = Date(timeIntervalSince1970: 1_800_000_000.5)
        let text = String(decoding: try AuthorizationDeciderWire.requestBody(request), as: UTF8.self)
        #expect(
            text
                == #"{"amount":{"currency":"USD","minor":1250},"amountAdjustable":true,"card":{"id":"ic_1"},"deadline":"2027-01-15T08:00:00.500Z","id":"iauth_1","instance":"us-issuing","kind":"incremental","merchant":{"categoryCode":"5411","country":"US","name":"Corner Shop"},"provider":"stripe"}"#
        )
    }

    @Test("the decision: the three shapes, an unknown or missing reason as other")
    func decision() throws {
        #expect(try AuthorizationDeciderWire.decision(from: Data(#"{"approved":true}"#.utf8)) == .approve())
        #expect(
            try AuthorizationDeciderWire.decision(
                from: Data(#"{"approved":true,"amount":{"currency":"EUR","minor":900}}"#.utf8))
                == .approve(amount: Money(minorUnits: 900, currency: "EUR")))
        for reason in AuthorizationDeclineReason.allCases {
            #expect(
                try AuthorizationDeciderWire.decision(
                    from: Data(#"{"approved":false,"reason":"\#(reason.rawValue)"}"#.utf8)) == .decline(reason))
        }
        #expect(
            try AuthorizationDeciderWire.decision(from: Data(#"{"approved":false,"reason":"tooLate"}"#.utf8))
                == .decline(.other))
        #expect(try AuthorizationDeciderWire.decision(from: Data(#"{"approved":false}"#.utf8)) == .decline(.other))
    }

    @Test(
        "anything else throws (the stand-in answers)",
        arguments: [
            "", "null", "[]", #"{"approved":"true"}"#, #"{}"#,
            #"{"approved":true,"amount":{"currency":"USD","minor":0}}"#,
            #"{"approved":true,"amount":{"currency":"USDX","minor":5}}"#, #"{"approved":true,"amount":{"minor":5}}"#,
        ])
    func garbage(text: String) {
        #expect(throws: HTTPAuthorizationDecider.Failure.self) {
            try AuthorizationDeciderWire.decision(from: Data(text.utf8))
        }
    }

    @Test("plain http only on loopback")
    func urls() throws {
        for good in ["https://decider.example/decide", "http://127.0.0.1:9/d", "http://localhost/d", "http://[::1]:9/"]
        {
            #expect(HTTPAuthorizationDecider.problem(with: URL(string: good)!) == nil, "\(good)")
        }
        for bad in ["http://decider.example/decide", "ftp://127.0.0.1/", "/decide", "http://10.0.0.1/"] {
            #expect(HTTPAuthorizationDecider.problem(with: URL(string: bad)!) != nil, "\(bad)")
        }
    }
}
