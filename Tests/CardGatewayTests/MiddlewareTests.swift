@_spi(AdapterSupport) import CardGateway
@_spi(AdapterSupport) import CardGatewayTesting
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Records which step saw which request, in order.
final class StepTrace: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var recorded: [String] { lines.withLock { $0 } }
}

/// A middleware that writes its name, the attempt and the idempotency header it saw into a trace, then goes on.
struct TracingMiddleware: ProviderMiddleware {
    let name: String
    let trace: StepTrace

    func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        let key = request.headers[HTTPField.Name("Idempotency-Key")!] ?? "-"
        trace.add("\(name) attempt=\(context.attempt) key=\(key == "-" ? "-" : "set")")
        var request = request
        request.headers[HTTPField.Name("X-Step-\(name)")!] = "1"
        return try await next(request, context)
    }
}

/// An adapter that reads a card with one GET through the client the gateway built for it.
struct HTTPProbeProvider: CardLookup {
    let descriptor: ProviderDescriptor
    let http: ProviderHTTPClient

    func card(_ ref: CardRef, context: OperationContext) async throws -> Card {
        let response = try await http.send(
            ProviderRequest(.get, "/cards/\(URLEncoding.pathSegment(ref.id))", operation: "get card"), context: context)
        guard response.isSuccess else { throw CardGatewayError(.invalidResponse, "status \(response.status)") }
        return Card(ref: ref, status: .active, providerStatus: "ACTIVE", scheme: .visa, lastFour: "4242")
    }

    static let kind = ProviderKind("probe")
    static var factory: ProviderFactory {
        let descriptor = ProviderDescriptor(kind: kind, capabilities: [.cardLookup])
        return ProviderFactory(
            kind: kind, descriptor: descriptor,
            environments: ["sandbox": URL(string: "https://sandbox.probe.example/v1")!],
            credentials: [CredentialSpec("apiKey")]
        ) { setup in
            let key = try setup.credential("apiKey")
            return HTTPProbeProvider(
                descriptor: descriptor,
                http: setup.http.authenticated(by: HeaderAuthentication.apiKey(HTTPField.Name("X-Probe-Key")!, key)))
        }
    }
}

/// Never answers; when its caller is cancelled, it fails as a connection library does (a transport error).
final class SlowTransport: HTTPTransport {
    let started = CountWatch()
    func send(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> TransportResponse {
        started.increment()
        // A stream nothing is ever sent on: iterating it ends only when the task is cancelled.
        let (silence, keepOpen) = AsyncStream.makeStream(of: Void.self)
        for await _ in silence {}
        keepOpen.finish()
        throw TransportError(.connectionClosed, "the connection was closed")
    }
}

@Suite("Provider middleware chain", .timeLimit(.minutes(5)))
struct MiddlewareTests {
    let base = URL(string: "https://api.alpha.example/v2")!

    @Test("idempotency, authentication, request middlewares, retries, attempt middlewares: in that order, on the wire")
    func order() async throws {
        let trace = StepTrace()
        let transport = ScriptedTransport([.json(503, "{}"), .json(200, "{}")])
        var client = try ProviderHTTPClient.testing(kind: ProviderKind("alpha"), baseURL: base, transport: transport)
        client.requestMiddlewares = [TracingMiddleware(name: "request", trace: trace)]
        client.attemptMiddlewares = [TracingMiddleware(name: "attempt", trace: trace)]
        client = client.authenticated(by: TracingMiddleware(name: "auth", trace: trace))
        let request = ProviderRequest(
            .post, "/cards", body: Data("{}".utf8),
            repeatability: .idempotent(header: HTTPField.Name("Idempotency-Key")!, scope: "create"), operation: "create"
        )
        let response = try await client.send(request, context: OperationContext(idempotencyKey: "op-1"))
        #expect(response.status == 200)
        #expect(response.attempts == 2)
        // The key is set before authentication runs; request steps run once, attempt steps once per attempt.
        #expect(
            trace.recorded == [
                "auth attempt=0 key=set", "request attempt=0 key=set", "attempt attempt=1 key=set",
                "attempt attempt=2 key=set",
            ])
        #expect(transport.requestCount == 2)
        for sent in transport.requests {
            #expect(sent.header("X-Step-auth") == "1")
            #expect(sent.header("X-Step-request") == "1")
            #expect(sent.header("X-Step-attempt") == "1")
        }
        #expect(Set(transport.requests.compactMap { $0.header("Idempotency-Key") }).count == 1)
    }

    @Test("a middleware that refuses sends nothing; its error is attributed to the instance and kept as thrown")
    func refusal() async throws {
        let transport = ScriptedTransport([.json(200, "{}")])
        var client = try ProviderHTTPClient.testing(
            instance: "eu-cards", kind: ProviderKind("alpha"), baseURL: base, transport: transport)
        client.attemptMiddlewares = [
            ClosureMiddleware { _, _, _ in
                throw CardGatewayError(
                    .providerUnavailable, "held back", isRetryable: true, mayHaveReachedProvider: false)
            }
        ]
        let error = await #expect(throws: CardGatewayError.self) {
            _ = try await client.send(ProviderRequest(.get, "/x", operation: "read"), context: OperationContext())
        }
        #expect(error?.code == .providerUnavailable)
        #expect(error?.provider == "eu-cards")
        #expect(error?.isRetryable == true)
        #expect(error?.mayHaveReachedProvider == false)
        #expect(transport.requestCount == 0)
    }

    @Test("an attempt middleware's transport failure is retried like the transport's own")
    func attemptTransportFailureRetried() async throws {
        let transport = ScriptedTransport([.json(200, "{}")])
        let failures = Mutex(1)
        var client = try ProviderHTTPClient.testing(kind: ProviderKind("alpha"), baseURL: base, transport: transport)
        client.attemptMiddlewares = [
            ClosureMiddleware { request, context, next in
                let fail = failures.withLock { count -> Bool in
                    defer { count -= 1 }
                    return count > 0
                }
                if fail { throw TransportError(.connectFailed, "refused before sending") }
                return try await next(request, context)
            }
        ]
        let response = try await client.send(
            ProviderRequest(.get, "/x", operation: "read"), context: OperationContext())
        #expect(response.attempts == 2)
        #expect(transport.requestCount == 1)
    }

    @Test("a caller cancelled while the provider is slow gets CancellationError, not a transport error")
    func cancellation() async throws {
        let transport = SlowTransport()
        let client = try ProviderHTTPClient.testing(kind: ProviderKind("alpha"), baseURL: base, transport: transport)
        let task = Task {
            try await client.send(ProviderRequest(.get, "/slow", operation: "read"), context: OperationContext())
        }
        await transport.started.until(1)
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(transport.started.count == 1)
    }

    // MARK: From configuration and from code

    static func document(middlewares: String) -> String {
        """
        {
          "providers": {
            "eu": { "kind": "probe", "environment": "sandbox", "credentials": { "apiKey": "literal:probe-key-1" },
                    "middlewares": \(middlewares) },
            "us": { "kind": "probe", "environment": "sandbox", "credentials": { "apiKey": "literal:probe-key-2" } }
          },
          "routes": []
        }
        """
    }

    static var registry: ProviderRegistry { ProviderRegistry([HTTPProbeProvider.factory]) }

    static func load(_ json: String) throws -> GatewayConfiguration {
        try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
    }

    static func problems(_ json: String) -> [ConfigurationProblem] {
        do {
            _ = try load(json)
            return []
        } catch let error as CardGatewayError {
            return error.configurationProblems
        } catch {
            return [ConfigurationProblem(path: "?", message: "\(error)")]
        }
    }

    @Test(
        "the headers middleware from configuration reaches the wire on its instance only, never over the adapter's auth"
    )
    func headersFromConfiguration() async throws {
        let configuration = try Self.load(
            Self.document(
                middlewares: #"[{"name": "headers", "options": {"X-Tenant": "eu-1", "X-Probe-Key": "not-the-key"}}]"#))
        #expect(
            configuration.providers["eu"]?.middlewares == [
                MiddlewareReference(
                    name: "headers", options: ["X-Tenant": .string("eu-1"), "X-Probe-Key": .string("not-the-key")])
            ])
        let transport = ScriptedTransport([], fallback: .json(200, "{}"))
        let gateway = try CardGateway(configuration: configuration, registry: Self.registry, transport: transport)
        _ = try await gateway.card(CardRef(id: "c1"), via: .instance("eu"))
        _ = try await gateway.card(CardRef(id: "c2"), via: .instance("us"))
        let sent = transport.requests
        #expect(sent.map(\.pathWithoutQuery) == ["/v1/cards/c1", "/v1/cards/c2"])
        #expect(sent[0].header("X-Tenant") == "eu-1")
        #expect(sent[0].header("X-Probe-Key") == "probe-key-1")
        #expect(sent[1].header("X-Tenant") == nil)
        #expect(sent[1].header("X-Probe-Key") == "probe-key-2")
    }

    @Test("middlewares added in code run on the instances the program picks, after the configured ones")
    func middlewaresFromCode() async throws {
        let trace = StepTrace()
        let configuration = try Self.load(
            Self.document(middlewares: #"[{"name": "headers", "options": {"X-Tenant": "eu-1"}}]"#))
        let transport = ScriptedTransport([], fallback: .json(200, "{}"))
        let gateway = try CardGateway(
            configuration: configuration, registry: Self.registry, transport: transport,
            middlewares: { instance in
                guard instance.name == "eu" else { return .none }
                return InstanceMiddlewares(
                    request: [
                        ClosureMiddleware { request, context, next in
                            trace.add(
                                "request sees tenant=\(request.headers[HTTPField.Name("X-Tenant")!] ?? "none") on \(context.instance)"
                            )
                            return try await next(request, context)
                        }
                    ],
                    attempt: [TracingMiddleware(name: "attempt", trace: trace)]
                )
            })
        _ = try await gateway.card(CardRef(id: "c1"), via: .instance("eu"))
        _ = try await gateway.card(CardRef(id: "c2"), via: .instance("us"))
        #expect(trace.recorded == ["request sees tenant=eu-1 on eu", "attempt attempt=1 key=-"])
        #expect(transport.requests[0].header("X-Step-attempt") == "1")
        #expect(transport.requests[1].header("X-Step-attempt") == nil)
    }

    @Test("a registered middleware factory is found by name and placed where it says")
    func registeredFactory() async throws {
        var registry = Self.registry
        registry.register(
            middleware: MiddlewareFactory(name: "attempt-counter", placement: .attempt) { options in
                guard let header = options["header"]?.stringValue else {
                    throw CardGatewayError.invalidRequest("is required", field: "header")
                }
                return ClosureMiddleware { request, context, next in
                    var request = request
                    request.headers[HTTPField.Name(header)!] = String(context.attempt)
                    return try await next(request, context)
                }
            })
        let json = Self.document(middlewares: #"[{"name": "attempt-counter", "options": {"header": "X-Attempt"}}]"#)
        let configuration = try GatewayConfiguration.load(from: Data(json.utf8), registry: registry)
        let transport = ScriptedTransport([.json(503, "{}"), .json(200, "{}")])
        let gateway = try CardGateway(configuration: configuration, registry: registry, transport: transport)
        _ = try await gateway.card(CardRef(id: "c1"), via: .instance("eu"))
        #expect(transport.requests.map { $0.header("X-Attempt") } == ["1", "2"])

        let missing = Self.document(middlewares: #"[{"name": "attempt-counter", "options": {}}]"#)
        #expect(throws: CardGatewayError.self) {
            try GatewayConfiguration.load(from: Data(missing.utf8), registry: registry)
        }
    }

    @Test(
        "bad middleware entries are refused at load, each at its JSON path, naming no header value",
        arguments: [
            (#"{"name": "headers"}"#, "providers.eu.middlewares"),
            (#"[{"name": "headers", "options": {"X-Tenant": 3}}]"#, "providers.eu.middlewares[0].options.X-Tenant"),
            (
                #"[{"name": "headers", "options": {"X-Tenant": "eu\r\nX-Evil: 1"}}]"#,
                "providers.eu.middlewares[0].options.X-Tenant"
            ),
            (
                #"[{"name": "headers", "options": {"Bad Header": "x"}}]"#,
                "providers.eu.middlewares[0].options.Bad Header"
            ),
            (#"[{"name": "headers", "options": {}}]"#, "providers.eu.middlewares[0].options"),
            (#"[{"name": "headers", "options": []}]"#, "providers.eu.middlewares[0].options"),
            (#"[{"name": "breaker-from-elsewhere"}]"#, "providers.eu.middlewares[0].name"),
            (#"[{"options": {}}]"#, "providers.eu.middlewares[0].name"),
            (#"["headers"]"#, "providers.eu.middlewares[0]"),
            (#"[{"name": "headers", "options": {"X-A": "b"}, "order": 1}]"#, "providers.eu.middlewares[0].order"),
        ])
    func badEntries(middlewares: String, path: String) {
        let problems = Self.problems(Self.document(middlewares: middlewares))
        #expect(problems.map(\.path).contains(path), "got \(problems)")
        #expect(!problems.contains { $0.message.contains("X-Evil") })
    }
}
