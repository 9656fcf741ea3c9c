import CardGateway
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import OpenAPIHummingbird
import OpenAPIRuntime
import Prometheus
import Tracing

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
        /// The largest webhook body accepted (a provider's real-time authorization request too).
        public var maxWebhookBodyBytes: Int
        /// The `Server` header, if any.
        public var serverName: String?
        /// Where `GET /metrics` reads from (Prometheus text); nil answers 404 there.
        public var metrics: PrometheusCollectorRegistry?
        /// The deadline for reading one request, head and body, counted from its first byte, and for a connection's
        /// first request counted from the moment the connection is accepted (a connection that sends nothing is
        /// closed after it, whatever `idleTimeout` says); past it the connection is closed and no handler runs. nil:
        /// no deadline.
        public var requestReadTimeout: Duration?
        /// How long a connection may stay open with no request in progress; nil: for ever.
        public var idleTimeout: Duration?
        /// The most connections open at once. At the limit a new connection takes the place of the oldest one that
        /// has not yet sent a complete request head (that one is closed), so that connections that send nothing
        /// cannot lock real users out; only when every place is held by a connection that has sent one is the new
        /// connection closed as soon as it is accepted. nil: no limit (the process's descriptor limit is then the
        /// limit).
        public var maxConnections: Int?
        /// The largest request head accepted (all header fields together, and any one of them).
        public var maxHeaderBytes: Int
        /// Calls a minute one authenticated user may make: provider calls (offers, provisioning, cards, stored
        /// credentials, `refresh=true`) cost one, cheap reads (cached bundle, status, credential list) a quarter.
        /// 0 turns the limit off.
        public var rateLimitPerUser: Int
        /// Requests a minute to `/v1` from one client address (authenticated or not). 0 turns the limit off.
        public var rateLimitPerAddress: Int
        /// Serve HTTPS with this configuration (certificate chain and key); nil serves plain HTTP.
        public var tls: TLSConfiguration?
        /// The card details and PIN routes' own rate limit and recent sign-in requirement (CardRevealAPI.swift).
        public var cardReveal = CardRevealPolicy()
        /// Who decides the real-time authorizations `POST /authorizations/{instance}` receives, after the local rules
        /// (``HTTPAuthorizationDecider`` for `--authorization-decider URL`); nil: the rules decide alone.
        public var authorizationDecider: (any AuthorizationDecider)?

        /// The defaults: a 5-minute wallet-extension cache (30 s when a card failed), 4 cards fetched at once, a
        /// 15 s bundle deadline, a 25 s deadline per request, 256 KiB request and 1 MiB webhook bodies, no
        /// stored-credential route; a 10 s read deadline per request, connections idle for 60 s closed, at most 512
        /// connections, 16 KiB of headers, 30 provider calls a minute per user and 600 requests a minute per address,
        /// plain HTTP.
        public init(
            walletExtensionTTL: Duration = .seconds(300), walletExtensionErrorTTL: Duration = .seconds(30),
            walletExtensionConcurrency: Int = 4, walletExtensionDeadline: Duration = .seconds(15),
            walletExtensionRequiresAuthentication: Bool = false, walletExtensionMaxCachedUsers: Int = 10_000,
            cardListConcurrency: Int = 4, storedCredentialRoute: RouteTarget? = nil,
            operationTimeout: Duration = .seconds(25),
            maxRequestBodyBytes: Int = 256 * 1024, maxWebhookBodyBytes: Int = 1024 * 1024, serverName: String? = nil,
            metrics: PrometheusCollectorRegistry? = nil, requestReadTimeout: Duration? = .seconds(10),
            idleTimeout: Duration? = .seconds(60),
            maxConnections: Int? = 512, maxHeaderBytes: Int = 16 * 1024, rateLimitPerUser: Int = 30,
            rateLimitPerAddress: Int = 600,
            tls: TLSConfiguration? = nil
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
            self.requestReadTimeout = requestReadTimeout
            self.idleTimeout = idleTimeout
            self.maxConnections = maxConnections
            self.maxHeaderBytes = maxHeaderBytes
            self.rateLimitPerUser = rateLimitPerUser
            self.rateLimitPerAddress = rateLimitPerAddress
            self.tls = tls
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
    /// Turns a bearer token into a user: the directory's tokens unless another is given.
    public let authenticator: any Authenticator
    /// Limits, cache lifetimes and the stored-credential route.
    public let configuration: Configuration
    /// Receives the access log (method, path template, status, duration, user id) and server events.
    public let logger: Logger
    /// Receives the audit trail of the card details and PIN sessions: one line per attempt, refused ones included
    /// (docs/SERVER.md, "Card details and PIN"). Its own channel, so that the access log's level never silences it.
    public let auditLogger: Logger
    let onEvent: @Sendable (GatewayEvent) async -> Void
    let now: @Sendable () -> Date
    let walletExtensionCache: WalletExtensionCache
    let userRateLimiter: RateLimiter?
    let addressRateLimiter: RateLimiter?
    /// Where the reveal rate limit counts (used while ``CardRevealPolicy/rateLimitPerUser`` is above 0).
    let revealAllowance: RevealAllowance

    /// - Parameters:
    ///   - gateway: the configured gateway.
    ///   - directory: users, their cards and stored credentials.
    ///   - configuration: limits, cache lifetimes and the stored-credential route.
    ///   - authenticator: turns bearer tokens into users; the directory's tokens by default
    ///     (``DirectoryTokenAuthenticator``).
    ///   - logger: where the server logs; nothing by default (the library never bootstraps logging).
    ///   - auditLogger: where the card details and PIN audit lines go, at notice; by default `logger`, with its level
    ///     lowered to notice if it was higher (so that no level set for the access log silences the audit).
    ///   - revealAllowance: where the reveal rate limit counts; in this process by default. Give a shared one (the
    ///     PostgreSQL store's) when several instances serve the same users.
    ///   - now: the clock for cache lifetimes and webhook freshness (injectable for tests).
    ///   - onEvent: called once per verified webhook event, after the server has invalidated the cached
    ///     wallet-extension bundles the event concerns.
    public init(
        gateway: CardGateway, directory: any CardDirectory, configuration: Configuration = Configuration(),
        authenticator: (any Authenticator)? = nil, logger: Logger = OperationContext.noopLogger,
        auditLogger: Logger? = nil, revealAllowance: RevealAllowance? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        onEvent: @escaping @Sendable (GatewayEvent) async -> Void = { _ in }
    ) {
        self.gateway = gateway
        self.directory = directory
        self.authenticator = authenticator ?? DirectoryTokenAuthenticator(directory: directory)
        self.configuration = configuration
        self.userRateLimiter =
            configuration.rateLimitPerUser > 0 ? RateLimiter(perMinute: configuration.rateLimitPerUser) : nil
        self.addressRateLimiter =
            configuration.rateLimitPerAddress > 0 ? RateLimiter(perMinute: configuration.rateLimitPerAddress) : nil
        self.revealAllowance = revealAllowance ?? .inMemory()
        self.logger = logger
        self.auditLogger =
            auditLogger
            ?? {
                var audit = logger
                if audit.logLevel > .notice { audit.logLevel = .notice }
                return audit
            }()
        self.now = now
        self.onEvent = onEvent
        self.walletExtensionCache = WalletExtensionCache(
            ttl: configuration.walletExtensionTTL,
            errorTTL: min(configuration.walletExtensionErrorTTL, configuration.walletExtensionTTL),
            maxUsers: max(1, configuration.walletExtensionMaxCachedUsers)
        )
    }

    /// Every route the server answers, as `openapi.yaml` lists them (the generated routing registers the same).
    public var endpoints: [Endpoint] {
        OpenAPISpec.bundled.operations.map {
            Endpoint(method: $0.method, path: $0.path, requiresAuthentication: $0.requiresAuthentication)
        }
    }

    /// The OpenAPI 3.1 document served at `GET /openapi.json`: `openapi.yaml` converted to JSON.
    public static var openAPIDocument: Data { OpenAPISpec.bundled.json }

    /// The OpenAPI 3.1 document the server's code was generated from, byte for byte (served at `GET /openapi.yaml`).
    public static var openAPIYAML: Data { OpenAPISpec.bundled.yaml }

    /// The options the generated code encodes and decodes with: the server's JSON (sorted keys, unescaped slashes)
    /// and RFC 3339 date-times.
    static let openAPIConfiguration = OpenAPIRuntime.Configuration(
        dateTranscoder: RFC3339DateTranscoder(), jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes]
    )

    /// A router with every route, for `Application(router:)` or for tests.
    public func buildRouter() -> Hummingbird.Router<ProvisioningRequestContext> {
        let spec = OpenAPISpec.bundled
        let router = Hummingbird.Router(context: ProvisioningRequestContext.self)
        // Bodies bounded before anything reads them; unknown paths and methods answered as problems.
        router.add(
            middleware: RoutingProblemMiddleware(
                spec: spec, logger: logger, maxRequestBodyBytes: configuration.maxRequestBodyBytes,
                maxWebhookBodyBytes: configuration.maxWebhookBodyBytes,
                addressRateLimiter: addressRateLimiter, audit: CardRevealAudit(logger: auditLogger, now: now)
            ))
        // Hummingbird's request metrics and spans, through what the program bootstrapped (nothing by default):
        // the span joins the caller's trace when the bootstrapped instrument extracts its context (W3C
        // traceparent with an OpenTelemetry tracer), and the gateway's spans are its children.
        router.add(middleware: MetricsMiddleware())
        // With no tracer bootstrapped the middleware would still name and fill a span that records nothing: about
        // 7 µs (1.6 % of the server's CPU) a card read (perf; docs/LOAD.md, "Cost of a call").
        if !(InstrumentationSystem.tracer is NoOpTracer) {
            router.add(middleware: TracingMiddleware())
        }
        let api = ProvisioningAPI(server: self)
        do {
            try api.registerHandlers(
                on: router, serverURL: URL(string: "/")!, configuration: Self.openAPIConfiguration,
                middlewares: [
                    RequestScopeMiddleware(
                        spec: spec, logger: logger, operationTimeout: configuration.operationTimeout,
                        audit: CardRevealAudit(logger: auditLogger, now: now)),
                    AuthenticationMiddleware(authenticator: authenticator, userRateLimiter: userRateLimiter),
                    NullFieldMiddleware(),
                ]
            )
        } catch {
            // Registration fails only for a server URL that is not a URL; the document's is a constant.
            preconditionFailure("the generated routes could not be registered: \(error)")
        }
        return router
    }

    /// The application, bound to `host:port` (127.0.0.1 by default; port 0 picks a free port), with the
    /// configuration's connection limits, read deadline, idle timeout, header limit and TLS.
    ///
    /// - Parameter onServerRunning: called with the bound port once the server accepts connections.
    public func buildApplication(
        host: String = "127.0.0.1", port: Int = 8080,
        onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) -> Application<RouterResponder<ProvisioningRequestContext>> {
        let logger = self.logger
        return Application(
            router: buildRouter(),
            server: httpServer(),
            // A listen backlog of 4,096, not Hummingbird's 256: a burst of a thousand app users connecting at once
            // (a card launch) overflowed the queue, and the kernel fell back to SYN cookies and dropped connections.
            // The kernel caps it at net.core.somaxconn.
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: port), serverName: configuration.serverName, backlog: 4_096),
            onServerRunning: { channel in
                let boundPort = channel.localAddress?.port ?? port
                logger.info(
                    "provisioning server listening",
                    metadata: ["host": .string(host), "port": .stringConvertible(boundPort)])
                await onServerRunning(boundPort)
            },
            logger: logger
        )
    }

    /// Hummingbird's HTTP/1.1 server (over TLS when configured) with the configuration's limits: the header
    /// limit in the HTTP decoder, the idle timeout in Hummingbird's connection handler, the read deadline and the
    /// connection limit (silent connections pushed out for new ones) in ``GuardedChannel``.
    func httpServer() -> HTTPServerBuilder {
        let configuration = self.configuration
        let logger = self.logger
        let connections = configuration.maxConnections.map { ConnectionSlots(maximum: $0, logger: logger) }
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
            maxHeaderFieldSize: configuration.maxHeaderBytes, maxHeaderListSize: configuration.maxHeaderBytes,
            maxHeaderFieldCount: 100
        )
        let readDeadline = configuration.requestReadTimeout
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: readDeadline == nil && connections == nil ? [] : [RequestEndObserver()],
            idleTimeout: configuration.idleTimeout.map { TimeAmount($0) }, httpDecoderConfiguration: decoder
        )
        return HTTPServerBuilder { responder in
            let base = HTTP1Channel(responder: responder, configuration: http1)
            if let tls = configuration.tls {
                return GuardedChannel(
                    base: try TLSChannel(base, tlsConfiguration: tls), connections: connections,
                    readDeadline: readDeadline, logger: logger)
            }
            return GuardedChannel(base: base, connections: connections, readDeadline: readDeadline, logger: logger)
        }
    }

    /// A TLS configuration for serving HTTPS from PEM files: the certificate chain (leaf first) and its private key.
    /// TLS 1.2 at least.
    public static func tlsConfiguration(certificateChainPEM: String, privateKeyPEM: String) throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMFile(certificateChainPEM).map {
            NIOSSLCertificateSource.certificate($0)
        }
        let key = try NIOSSLPrivateKey(file: privateKeyPEM, format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        return tls
    }

    /// Drops the cached wallet-extension bundle of one user (after their cards change, say).
    public func invalidateWalletExtension(for user: AppUser) async {
        await walletExtensionCache.invalidate(userID: user.id)
    }

    /// A metrics factory writing into `registry`, with the dots of the gateway's metric and label names turned
    /// into the underscores Prometheus requires (`cardgateway.operations` → `cardgateway_operations`).
    public static func prometheusFactory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            // Every metric handle a call makes passes through here (swift-metrics asks the factory for each), so a
            // name that is already clean, as all of the gateway's are, is returned as it is: the Character-by-
            // Character copy cost 20 µs a Stripe authorization, 3 % of the server's CPU for one (perf, issue 47).
            func allowed(_ byte: UInt8) -> Bool {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: ":"):
                    true
                default: false
                }
            }
            func clean(_ text: String) -> String {
                if text.utf8.allSatisfy(allowed) { return text }
                return String(
                    text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") ? $0 : "_" })
            }
            return (clean(name), labels.map { (clean($0.0), $0.1) })
        }
        return factory
    }

    /// The metrics registry in Prometheus' text format, version 0.0.4.
    func metricsText() throws -> Data {
        guard let registry = configuration.metrics else {
            throw CardGatewayError(.notFound, "metrics are not enabled on this server")
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return Data(buffer)
    }

    /// The user's card with this public id; the same 404 for unknown and foreign cards.
    func ownedCard(_ id: String, of user: AppUser) async throws -> OwnedCard {
        // An id no directory can hold (a traversal, a control character, an oversized one) is the caller's mistake,
        // not an unknown card: 400, before any lookup.
        guard OwnedCard.isValidID(id) else {
            throw APIProblem.invalidRequest(
                "The card id is not valid.",
                errors: [FieldProblem(field: "cardId", message: "must match \(OwnedCard.idPattern)")]
            )
        }
        guard let card = try await directory.card(id, of: user) else {
            throw APIProblem.cardNotFound
        }
        return card
    }
}
