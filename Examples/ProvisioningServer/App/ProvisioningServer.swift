import CardGateway
import Foundation
import HTTPTypes
import Hummingbird
import Prometheus
import Logging

/// The backend a mobile app talks to for wallet provisioning and stored credentials: a Hummingbird
/// application around a ``CardGateway`` and a ``CardDirectory``.
///
/// ```swift
/// let server = ProvisioningServer(gateway: gateway, directory: directory, logger: logger) { event in
///     // react to verified webhook events
/// }
/// let app = server.buildApplication(host: "127.0.0.1", port: 8080)
/// try await app.runService()
/// ```
///
/// Every `/v1` route needs `Authorization: Bearer <token>`; the directory turns the token into a user and
/// says which cards that user owns, and nothing reaches a provider for a card the user does not own.
public struct ProvisioningServer: Sendable {
    /// Limits and choices that are not about the gateway itself.
    public struct Configuration: Sendable {
        /// How long a wallet-extension bundle is served from the cache.
        public var walletExtensionTTL: Duration
        /// How long a bundle in which some card failed is served from the cache (at most `walletExtensionTTL`).
        public var walletExtensionErrorTTL: Duration
        /// How many cards are fetched at once when a bundle is built.
        public var walletExtensionConcurrency: Int
        /// The deadline for building one bundle, within the wallet extension's ~20 s budget.
        public var walletExtensionDeadline: Duration
        /// What the wallet extension's `status()` reports as `requiresAuthentication`.
        public var walletExtensionRequiresAuthentication: Bool
        /// How many users' bundles the cache keeps at most; the oldest go first.
        public var walletExtensionMaxCachedUsers: Int
        /// How many cards are looked up at once for `GET /v1/cards`.
        public var cardListConcurrency: Int
        /// Where stored-credential operations are routed; nil turns the `/v1/credentials` writes off (501).
        public var storedCredentialRoute: RouteTarget?
        /// The deadline for the provider calls of one request, retries included.
        public var operationTimeout: Duration
        /// The largest API request body accepted.
        public var maxRequestBodyBytes: Int
        /// The largest webhook body accepted.
        public var maxWebhookBodyBytes: Int
        /// The `Server` header, if any.
        public var serverName: String?
        /// Where `GET /metrics` reads from (Prometheus text); nil answers 404 there.
        public var metrics: PrometheusCollectorRegistry?

        /// The defaults: a 5-minute wallet-extension cache (30 s when a card failed), 4 cards fetched at once, a
        /// 15 s bundle deadline, a 25 s deadline per request, 256 KiB request and 1 MiB webhook bodies, and no
        /// stored-credential route.
        public init(
            walletExtensionTTL: Duration = .seconds(300), walletExtensionErrorTTL: Duration = .seconds(30),
            walletExtensionConcurrency: Int = 4, walletExtensionDeadline: Duration = .seconds(15),
            walletExtensionRequiresAuthentication: Bool = false, walletExtensionMaxCachedUsers: Int = 10_000,
            cardListConcurrency: Int = 4, storedCredentialRoute: RouteTarget? = nil, operationTimeout: Duration = .seconds(25),
            maxRequestBodyBytes: Int = 256 * 1024, maxWebhookBodyBytes: Int = 1024 * 1024, serverName: String? = nil,
            metrics: PrometheusCollectorRegistry? = nil
        ) {
            self.walletExtensionTTL = walletExtensionTTL
            self.walletExtensionErrorTTL = walletExtensionErrorTTL
            self.walletExtensionConcurrency = walletExtensionConcurrency
            self.walletExtensionDeadline = walletExtensionDeadline
            self.walletExtensionRequiresAuthentication = walletExtensionRequiresAuthentication
            self.walletExtensionMaxCachedUsers = walletExtensionMaxCachedUsers
            self.cardListConcurrency = cardListConcurrency
            self.storedCredentialRoute = storedCredentialRoute
            self.operationTimeout = operationTimeout
            self.maxRequestBodyBytes = maxRequestBodyBytes
            self.maxWebhookBodyBytes = maxWebhookBodyBytes
            self.serverName = serverName
            self.metrics = metrics
        }
    }

    /// One route of the API, as the OpenAPI document names it.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// `GET`, `POST`.
        public var method: String
        /// The path template (`/v1/cards/{cardId}`).
        public var path: String
        /// Whether the route needs `Authorization: Bearer <token>`.
        public var requiresAuthentication: Bool

        /// - Parameters:
        ///   - method: the HTTP method.
        ///   - path: the path template.
        ///   - requiresAuthentication: whether a bearer token is needed.
        public init(method: String, path: String, requiresAuthentication: Bool) {
            self.method = method
            self.path = path
            self.requiresAuthentication = requiresAuthentication
        }

        public var description: String { "\(method) \(path)" }
    }

    /// The gateway every provider call goes through.
    public let gateway: CardGateway
    /// Users, their cards and stored credentials; asked before any provider call.
    public let directory: any CardDirectory
    /// Limits, cache lifetimes and the stored-credential route.
    public let configuration: Configuration
    /// Receives the access log (method, path template, status, duration, user id) and server events.
    public let logger: Logger
    let onEvent: @Sendable (GatewayEvent) async -> Void
    let now: @Sendable () -> Date
    let walletExtensionCache: WalletExtensionCache

    /// - Parameters:
    ///   - gateway: the configured gateway.
    ///   - directory: users, their cards and stored credentials.
    ///   - configuration: limits, cache lifetimes and the stored-credential route.
    ///   - logger: where the server logs; nothing by default (the library never bootstraps logging).
    ///   - now: the clock for cache lifetimes and webhook freshness (injectable for tests).
    ///   - onEvent: called once per verified webhook event, after the server has invalidated the cached
    ///     wallet-extension bundles the event concerns.
    public init(
        gateway: CardGateway, directory: any CardDirectory, configuration: Configuration = Configuration(),
        logger: Logger = OperationContext.noopLogger, now: @escaping @Sendable () -> Date = { Date() },
        onEvent: @escaping @Sendable (GatewayEvent) async -> Void = { _ in }
    ) {
        self.gateway = gateway
        self.directory = directory
        self.configuration = configuration
        self.logger = logger
        self.now = now
        self.onEvent = onEvent
        self.walletExtensionCache = WalletExtensionCache(
            ttl: configuration.walletExtensionTTL, errorTTL: min(configuration.walletExtensionErrorTTL, configuration.walletExtensionTTL),
            maxUsers: max(1, configuration.walletExtensionMaxCachedUsers)
        )
    }

    /// Every route the server answers, in registration order.
    public var endpoints: [Endpoint] { routes.map(\.endpoint) }

    /// The OpenAPI 3.1 document served at `GET /openapi.json`.
    public static var openAPIDocument: Data { Data(OpenAPIDocument.json.utf8) }

    /// A router with every route, for `Application(router:)` or for tests.
    public func buildRouter() -> Hummingbird.Router<BasicRequestContext> {
        let router = Hummingbird.Router(context: BasicRequestContext.self)
        // Requests that match no route still get a problem body.
        router.add(middleware: NotFoundProblemMiddleware(logger: logger))
        // Hummingbird's request metrics and spans, through what the program bootstrapped (nothing by default):
        // the span joins the caller's trace when the bootstrapped instrument extracts its context (W3C
        // traceparent with an OpenTelemetry tracer), and the gateway's spans are its children.
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: TracingMiddleware())
        for route in routes {
            router.on(RouterPath(route.endpoint.path), method: HTTPRequest.Method(rawValue: route.endpoint.method)!) { request, context in
                await self.respond(route, request: request, context: context)
            }
        }
        return router
    }

    /// The application, bound to `host:port` (127.0.0.1 by default; port 0 picks a free port).
    ///
    /// - Parameter onServerRunning: called with the bound port once the server accepts connections.
    public func buildApplication(
        host: String = "127.0.0.1", port: Int = 8080, onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) -> Application<RouterResponder<BasicRequestContext>> {
        let logger = self.logger
        return Application(
            router: buildRouter(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: configuration.serverName),
            onServerRunning: { channel in
                let boundPort = channel.localAddress?.port ?? port
                logger.info("provisioning server listening", metadata: ["host": .string(host), "port": .stringConvertible(boundPort)])
                await onServerRunning(boundPort)
            },
            logger: logger
        )
    }

    /// Drops the cached wallet-extension bundle of one user (after their cards change, say).
    public func invalidateWalletExtension(for user: AppUser) async {
        await walletExtensionCache.invalidate(userID: user.id)
    }

    // MARK: Routes

    /// One registered route: its public description and its handler.
    struct RouteEntry: Sendable {
        enum Handler: Sendable {
            case open(@Sendable (RequestScope) async throws -> Response)
            case authenticated(@Sendable (RequestScope, AppUser) async throws -> Response)
        }

        var endpoint: Endpoint
        var handler: Handler

        static func open(_ method: String, _ path: String, _ handler: @escaping @Sendable (RequestScope) async throws -> Response) -> RouteEntry {
            RouteEntry(endpoint: Endpoint(method: method, path: path, requiresAuthentication: false), handler: .open(handler))
        }

        static func user(_ method: String, _ path: String, _ handler: @escaping @Sendable (RequestScope, AppUser) async throws -> Response) -> RouteEntry {
            RouteEntry(endpoint: Endpoint(method: method, path: path, requiresAuthentication: true), handler: .authenticated(handler))
        }
    }

    /// The route table: each path is described in ``OpenAPIDocument``.
    var routes: [RouteEntry] {
        [
            .open("GET", "/health") { _ in JSONOutput.response(["status": "ok"]) },
            .open("GET", "/openapi.json") { _ in JSONOutput.raw(Self.openAPIDocument) },
            .open("GET", "/metrics") { _ in try self.metrics() },
            .user("GET", "/v1/cards") { scope, user in try await self.listCards(scope, user) },
            .user("GET", "/v1/cards/{cardId}") { scope, user in try await self.getCard(scope, user) },
            .user("GET", "/v1/cards/{cardId}/provisioning/offer") { scope, user in try await self.offer(scope, user) },
            .user("POST", "/v1/cards/{cardId}/provisioning/{wallet}") { scope, user in try await self.provision(scope, user) },
            .user("POST", "/v1/cards/{cardId}/provisioning/{wallet}/confirm") { scope, user in try await self.confirm(scope, user) },
            .user("GET", "/v1/wallet-extension") { scope, user in try await self.walletExtension(scope, user) },
            .user("GET", "/v1/wallet-extension/status") { scope, user in try await self.walletExtensionStatus(scope, user) },
            .user("POST", "/v1/credentials/session") { scope, user in try await self.credentialSession(scope, user) },
            .user("POST", "/v1/credentials/result") { scope, user in try await self.credentialResult(scope, user) },
            .user("GET", "/v1/credentials") { scope, user in try await self.listCredentials(scope, user) },
            .open("POST", "/webhooks/{instance}") { scope in try await self.webhook(scope) },
        ]
    }

    /// A metrics factory writing into `registry`, with the dots of the gateway's metric and label names turned
    /// into the underscores Prometheus requires (`cardgateway.operations` → `cardgateway_operations`).
    public static func prometheusFactory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            func clean(_ text: String) -> String {
                String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") ? $0 : "_" })
            }
            return (clean(name), labels.map { (clean($0.0), $0.1) })
        }
        return factory
    }

    /// The metrics registry in Prometheus' text format, version 0.0.4.
    func metrics() throws -> Response {
        guard let registry = configuration.metrics else {
            throw CardGatewayError(.notFound, "metrics are not enabled on this server")
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return JSONOutput.raw(Data(buffer), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    /// Runs one route: request id, authentication, the handler, errors as problems, and one access-log line.
    func respond(_ route: RouteEntry, request: Request, context: BasicRequestContext) async -> Response {
        let started = ContinuousClock.now
        let requestID = RequestScope.requestID(from: request)
        var requestLogger = logger
        requestLogger[metadataKey: "request.id"] = .string(requestID)
        let scope = RequestScope(
            request: request, parameters: context.parameters, requestID: requestID, logger: requestLogger,
            maxBodyBytes: route.endpoint.path.hasPrefix("/webhooks/") ? configuration.maxWebhookBodyBytes : configuration.maxRequestBodyBytes,
            operationTimeout: configuration.operationTimeout
        )
        var user: AppUser?
        var response: Response
        var failure: ProblemRendering?
        do {
            switch route.handler {
            case .open(let handler):
                response = try await handler(scope)
            case .authenticated(let handler):
                let authenticated = try await authenticate(request)
                user = authenticated
                response = try await handler(scope, authenticated)
            }
        } catch {
            let rendering = ProblemRendering(error, requestID: requestID)
            failure = rendering
            response = rendering.response()
        }
        response.headers[HTTPField.Name.requestID] = requestID
        if route.endpoint.requiresAuthentication {
            // Payloads, keys and tokens must not be kept by intermediaries or the app's URL cache.
            response.headers[.cacheControl] = "no-store"
        }

        var metadata: Logger.Metadata = [
            "http.method": .string(route.endpoint.method),
            "http.route": .string(route.endpoint.path),
            "http.status": .stringConvertible(response.status.code),
            "duration_ms": .stringConvertible(Self.milliseconds(ContinuousClock.now - started)),
        ]
        if let user { metadata["user.id"] = .string(user.id) }
        if let failure {
            metadata["error.code"] = .string(failure.logCode)
            if let provider = failure.provider { metadata["provider"] = .string(provider) }
        }
        requestLogger.log(level: response.status.code >= 500 ? .warning : .info, "request", metadata: metadata)
        return response
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// The user behind `Authorization: Bearer <token>`; 401 when it is missing, malformed or unknown.
    func authenticate(_ request: Request) async throws -> AppUser {
        guard let header = request.headers[.authorization] else { throw APIProblem.unauthenticated(invalidToken: false) }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw APIProblem.unauthenticated(invalidToken: false) }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.utf8.count <= 4096, let user = try await directory.user(forToken: token) else {
            throw APIProblem.unauthenticated(invalidToken: true)
        }
        return user
    }

    /// The user's card named by the `cardId` path parameter; the same 404 for unknown and foreign cards.
    func ownedCard(_ scope: RequestScope, _ user: AppUser) async throws -> OwnedCard {
        guard let id = scope.parameters.get("cardId"), !id.isEmpty, let card = try await directory.card(id, of: user) else {
            throw APIProblem.cardNotFound
        }
        return card
    }
}

/// What a handler gets: the request, its path parameters, and the per-request settings.
struct RequestScope: Sendable {
    var request: Request
    var parameters: Parameters
    var requestID: String
    var logger: Logger
    var maxBodyBytes: Int
    var operationTimeout: Duration

    /// The body's bytes; 413 when larger than the route accepts, 400 when it is declared as something other than JSON.
    func jsonBody() async throws -> Data {
        if let contentType = request.headers[.contentType] {
            let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            guard mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json")) else {
                throw APIProblem.notJSON()
            }
        }
        return try await rawBody()
    }

    /// The body's bytes exactly as they arrived.
    func rawBody() async throws -> Data {
        let buffer = try await request.body.collect(upTo: maxBodyBytes)
        return Data(buffer.readableBytesView)
    }

    /// A query parameter.
    func query(_ name: String) -> String? {
        request.uri.queryParameters.get(name)
    }

    /// The context for the gateway: this request's logger, id and deadline, the caller's idempotency key
    /// (scoped to the user, so two users' keys never collide at a provider) and a solved SCA challenge.
    func operationContext(user: AppUser?) throws -> OperationContext {
        var context = OperationContext(logger: logger, deadline: .now + operationTimeout, requestID: requestID)
        if let key = request.headers[.idempotencyKey] {
            guard Self.isSafeToken(key, maxLength: 255) else {
                throw APIProblem.invalidRequest("Idempotency-Key must be 1 to 255 characters of letters, digits and -_.:")
            }
            let scoped = MessageAuthentication.sha256(Data("\(user?.id ?? "")\n\(key)".utf8))
            context.idempotencyKey = String(ByteEncoding.hex(scoped).prefix(40))
        }
        let eventID = request.headers[.scaEventID]
        let operationID = request.headers[.scaWalletOperationID]
        switch (eventID, operationID) {
        case (nil, nil):
            break
        case (let eventID?, let operationID?) where Self.isSafeToken(eventID, maxLength: 128) && Self.isSafeToken(operationID, maxLength: 128):
            context.sca = SCAAuthorization(eventID: eventID, walletOperationID: operationID)
        default:
            throw APIProblem.invalidRequest("Send both X-SCA-Event-Id and X-SCA-Wallet-Operation-Id, as the challenge gave them.")
        }
        return context
    }

    /// The caller's `X-Request-ID` when it is a short plain token, else a new one.
    static func requestID(from request: Request) -> String {
        if let given = request.headers[HTTPField.Name.requestID], isSafeToken(given, maxLength: 64) { return given }
        return UUID().uuidString.lowercased()
    }

    static func isSafeToken(_ text: String, maxLength: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maxLength
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
            }
    }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-ID")!
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let scaEventID = HTTPField.Name("X-SCA-Event-Id")!
    static let scaWalletOperationID = HTTPField.Name("X-SCA-Wallet-Operation-Id")!
}

/// Answers requests that match no route with a 404 problem instead of an empty body.
struct NotFoundProblemMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let requestID = RequestScope.requestID(from: request)
            let rendering = ProblemRendering(error, requestID: requestID)
            var response = rendering.response()
            response.headers[HTTPField.Name.requestID] = requestID
            logger.info("request", metadata: [
                "http.method": .string(request.method.rawValue), "http.route": "unmatched",
                "http.status": .stringConvertible(response.status.code), "request.id": .string(requestID),
            ])
            return response
        }
    }
}
