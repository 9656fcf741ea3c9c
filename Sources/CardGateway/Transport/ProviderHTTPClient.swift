import Foundation
import HTTPTypes
import Logging

/// One request an adapter wants sent, relative to the provider's base URL.
public struct ProviderRequest: Sendable, CustomStringConvertible {
    /// Whether the request may be sent more than once.
    public enum Repeatability: Sendable, Equatable {
        /// A read: repeating it changes nothing.
        case safe
        /// A write the provider de-duplicates by key: the client puts one key (derived once for this request
        /// from the operation's key and `scope`) in `header` and sends the same key on every attempt.
        case idempotent(header: HTTPField.Name, scope: String)
        /// A write the provider de-duplicates by a key the adapter has already written into the request itself
        /// (Marqeta's body `token`): repeated like an idempotent write, with the same bytes on every attempt. The
        /// adapter derives the key with ``IdempotencyKeys/derive(operationKey:scope:maxLength:)`` once per call.
        case idempotentByContent
        /// A write that must never be repeated once it may have reached the provider (a charge). It is still
        /// repeated when the connection provably never opened.
        case never
    }

    public var method: HTTPRequest.Method
    /// Path below the base URL, starting with `/`, ids already escaped (``URLEncoding/pathSegment(_:)``).
    public var path: String
    public var query: [(name: String, value: String)]
    public var headers: HTTPFields
    public var body: Data?
    public var repeatability: Repeatability
    /// A short name for logs ("tokenize", "get card").
    public var operation: String

    public init(
        _ method: HTTPRequest.Method, _ path: String, query: [(name: String, value: String)] = [],
        headers: HTTPFields = [:], body: Data? = nil, repeatability: Repeatability? = nil, operation: String
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.repeatability = repeatability ?? Self.defaultRepeatability(method)
        self.operation = operation
    }

    public var description: String { "ProviderRequest(\(method.rawValue) \(path), operation: \(operation))" }

    /// Reads (GET, HEAD, OPTIONS) are safe to repeat; every other method is not (a switch, not an array
    /// literal that every request would allocate).
    private static func defaultRepeatability(_ method: HTTPRequest.Method) -> Repeatability {
        switch method {
        case .get, .head, .options: return .safe
        default: return .never
        }
    }
}

/// A provider's answer, whatever its status: adapters map non-success statuses to ``CardGatewayError``.
public struct ProviderResponse: Sendable, CustomStringConvertible {
    public var status: Int
    public var headers: HTTPFields
    public var body: Data
    /// How many attempts it took.
    public var attempts: Int
    /// The idempotency key sent, when the request carried one.
    public var idempotencyKey: String?

    public init(status: Int, headers: HTTPFields, body: Data, attempts: Int = 1, idempotencyKey: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.attempts = attempts
        self.idempotencyKey = idempotencyKey
    }

    public var isSuccess: Bool { (200..<300).contains(status) }

    public func header(_ name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        return headers[fieldName]
    }

    /// The `Retry-After` header, parsed.
    public var retryAfter: Duration? { headers[Self.retryAfterName].flatMap { RetryPolicy.parseRetryAfter($0) } }

    private static let retryAfterName = HTTPField.Name("Retry-After")!

    public var description: String { "ProviderResponse(status: \(status), \(body.count) bytes, attempts: \(attempts))" }
}

/// Sends an adapter's requests to one provider instance through a chain of ``ProviderMiddleware``s: builds URLs
/// from the base URL, applies the instance's timeout and the caller's deadline, retries what is safe to retry
/// with full-jitter backoff and `Retry-After`, keeps one idempotency key per logical request across its
/// retries, and logs without bodies or header values. See ``ProviderMiddleware`` for the order of the steps.
///
/// Time and randomness (the back-off's sleep and jitter, the deadline) come from one ``GatewayClock``.
///
/// The settings an adapter may change after building the client (``idempotencyKeyMaxLength``, ``retryAdvice``,
/// ``authentication``, the middlewares) and the chain composed from them are kept together as one immutable value:
/// changing a setting replaces both, so the chain a request runs through is always the one its settings describe,
/// and a request composes nothing. (Settings are changed while an adapter is built, not per request.)
@_spi(AdapterSupport) public struct ProviderHTTPClient: Sendable {
    public let instance: String
    public let kind: ProviderKind
    public let baseURL: URL
    public let transport: any HTTPTransport
    /// The time one attempt may take.
    public let timeout: Duration
    public let retry: RetryPolicy
    public let logger: Logger
    /// The clock and random source of the retry back-off (its sleep and jitter) and of the caller's deadline.
    public let clock: GatewayClock

    /// The provider's limit on idempotency-key length.
    public var idempotencyKeyMaxLength: Int {
        get { pipeline.settings.idempotencyKeyMaxLength }
        set { change { $0.idempotencyKeyMaxLength = newValue } }
    }
    /// The provider's own word on retrying a response, when it gives one (Stripe's `Stripe-Should-Retry`):
    /// true or false overrides the status rule; nil leaves it.
    public var retryAdvice: @Sendable (ProviderResponse) -> Bool? {
        get { pipeline.settings.retryAdvice }
        set { change { $0.retryAdvice = newValue } }
    }
    /// The adapter's authentication (a bearer token, an API key header, OAuth with refresh…), run once per
    /// logical request after the idempotency step. Adapters set it with ``authenticated(by:)``.
    public var authentication: (any ProviderMiddleware)? {
        get { pipeline.settings.authentication }
        set { change { $0.authentication = newValue } }
    }
    /// The user's middlewares that run once per logical request, after authentication and before retries.
    public var requestMiddlewares: [any ProviderMiddleware] {
        get { pipeline.settings.requestMiddlewares }
        set { change { $0.requestMiddlewares = newValue } }
    }
    /// Middlewares that run once per attempt, inside the retry step (breaker, bulkhead, metrics, spans, the
    /// user's own).
    public var attemptMiddlewares: [any ProviderMiddleware] {
        get { pipeline.settings.attemptMiddlewares }
        set { change { $0.attemptMiddlewares = newValue } }
    }

    /// What never changes after the initialiser: the retry step's rules and the transport's end of the chain.
    private let core: Core
    /// The changeable settings with the chain composed from them: the only place either is stored.
    private var pipeline: Pipeline

    /// The settings an adapter may change.
    struct Settings: Sendable {
        var idempotencyKeyMaxLength: Int
        var retryAdvice: @Sendable (ProviderResponse) -> Bool?
        var authentication: (any ProviderMiddleware)?
        var requestMiddlewares: [any ProviderMiddleware]
        var attemptMiddlewares: [any ProviderMiddleware]
    }

    /// Settings and the chain made from them, made together and never changed.
    private final class Pipeline: Sendable {
        let settings: Settings
        let chain: ProviderNext

        /// Composes the chain: the idempotency step, the authentication, the request middlewares, the retry
        /// step, the attempt middlewares, the attempt log lines and the transport.
        init(core: Core, settings: Settings) {
            self.settings = settings
            var steps: [any ProviderMiddleware] = [IdempotencyStep(maxLength: settings.idempotencyKeyMaxLength)]
            if let authentication = settings.authentication { steps.append(authentication) }
            steps += settings.requestMiddlewares
            steps.append(RetryStep(rules: RetryRules(core: core, retryAdvice: settings.retryAdvice)))
            steps += settings.attemptMiddlewares
            steps.append(AttemptLogStep())
            let transport = core.transport
            chain = steps.chained { request, context in
                let httpRequest = try core.makeHTTPRequest(request, headers: request.headers)
                let result = try await transport.send(httpRequest, body: request.body, timeout: context.attemptTimeout)
                return ProviderResponse(
                    status: result.response.status.code, headers: result.response.headerFields, body: result.body)
            }
        }
    }

    /// The client's fixed settings, as the steps of its chain need them.
    struct Core: Sendable {
        let instance: String
        let kind: ProviderKind
        let transport: any HTTPTransport
        let timeout: Duration
        let retry: RetryPolicy
        let clock: GatewayClock
        /// The base URL's scheme, authority and path, split once (nil when the URL has no scheme or host, which
        /// ``makeHTTPRequest(_:headers:)`` reports on every request, as it always did).
        let endpoint: Endpoint?

        func makeHTTPRequest(_ request: ProviderRequest, headers: HTTPFields) throws -> HTTPRequest {
            guard let endpoint else {
                throw CardGatewayError(
                    .invalidConfiguration, "the base URL of \(instance) is not valid", provider: instance)
            }
            // An id of "." or ".." would become a dot segment, which a server or proxy that normalises paths turns
            // into another resource's path. No adapter's request may carry one, however its ids were checked.
            if URLEncoding.hasDotSegment(request.path) {
                throw CardGatewayError(
                    .invalidRequest, "the request path has a dot segment (an id of \".\" or \"..\"); nothing was sent",
                    provider: instance, providerKind: kind)
            }
            var path: String
            if endpoint.basePath.isEmpty && request.path.hasPrefix("/") {
                path = request.path
            } else {
                path = endpoint.basePath + (request.path.hasPrefix("/") ? request.path : "/" + request.path)
            }
            if !request.query.isEmpty { path += "?" + URLEncoding.query(request.query) }
            let scheme = endpoint.scheme
            let authority = endpoint.authority
            var fields = headers
            // Room for the two defaults at the copy a first change makes anyway, rather than a second growth to add them.
            fields.reserveCapacity(headers.count + 2)
            fields.appendIfAbsent(.accept, "application/json")
            fields.appendIfAbsent(.userAgent, "CardGateway/1.0")
            return HTTPRequest(
                method: request.method, scheme: scheme, authority: authority, path: path, headerFields: fields)
        }
    }

    struct Endpoint: Sendable {
        var scheme: String
        var authority: String
        /// The base URL's percent-encoded path without trailing slashes ("" for a bare host).
        var basePath: String

        init?(_ baseURL: URL) {
            guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
                let host = components.host,
                let scheme = components.scheme
            else { return nil }
            var basePath = components.percentEncodedPath
            while basePath.hasSuffix("/") { basePath.removeLast() }
            let formattedHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            self.scheme = scheme
            self.authority = components.port.map { "\(formattedHost):\($0)" } ?? formattedHost
            self.basePath = basePath
        }
    }

    /// - Parameters:
    ///   - clock: the clock and random source of the back-off and the deadline (``GatewayClock/system`` by default;
    ///     a test's manual clock in tests). The gateway passes its own.
    public init(
        instance: String, kind: ProviderKind, baseURL: URL, transport: any HTTPTransport,
        timeout: Duration = .seconds(30), retry: RetryPolicy = .default, logger: Logger = OperationContext.noopLogger,
        idempotencyKeyMaxLength: Int = 64, retryAdvice: @escaping @Sendable (ProviderResponse) -> Bool? = { _ in nil },
        clock: GatewayClock = .system,
        requestMiddlewares: [any ProviderMiddleware] = [], attemptMiddlewares: [any ProviderMiddleware] = []
    ) throws {
        try EndpointPolicy.validate(baseURL)
        self.instance = instance
        self.kind = kind
        self.baseURL = baseURL
        self.transport = transport
        self.timeout = timeout
        self.retry = retry
        self.logger = logger
        self.clock = clock
        let core = Core(
            instance: instance, kind: kind, transport: transport, timeout: timeout, retry: retry, clock: clock,
            endpoint: Endpoint(baseURL)
        )
        self.core = core
        self.pipeline = Pipeline(
            core: core,
            settings: Settings(
                idempotencyKeyMaxLength: idempotencyKeyMaxLength, retryAdvice: retryAdvice, authentication: nil,
                requestMiddlewares: requestMiddlewares, attemptMiddlewares: attemptMiddlewares
            ))
    }

    /// Replaces the settings and the chain together.
    private mutating func change(_ update: (inout Settings) -> Void) {
        var settings = pipeline.settings
        update(&settings)
        pipeline = Pipeline(core: core, settings: settings)
    }

    /// A copy whose requests carry the adapter's authentication.
    public func authenticated(by middleware: any ProviderMiddleware) -> ProviderHTTPClient {
        var copy = self
        copy.authentication = middleware
        return copy
    }

    /// A copy without the adapter's authentication (for a request that authenticates itself, such as the call
    /// that obtains an OAuth token).
    public var unauthenticated: ProviderHTTPClient {
        var copy = self
        copy.authentication = nil
        return copy
    }

    /// Sends `request` through the chain, retrying as its repeatability allows, and returns the last response
    /// whatever its status. Throws ``CardGatewayError`` (`timeout` or `transport`, or what a middleware threw)
    /// when no response came.
    public func send(_ request: ProviderRequest, context: OperationContext) async throws -> ProviderResponse {
        var logger = context.logger.label == OperationContext.noopLogger.label ? self.logger : context.logger
        // A logger that drops everything (no logger given) is not given metadata: its dictionary would be allocated
        // and filled on every request for nothing.
        if !(logger.handler is SwiftLogNoOpLogHandler) {
            logger[metadataKey: "cardgateway.provider"] = .string(instance)
            logger[metadataKey: "cardgateway.provider.kind"] = .string(kind.name)
            logger[metadataKey: "cardgateway.operation"] = .string(request.operation)
            if let requestID = context.requestID { logger[metadataKey: "request.id"] = .string(requestID) }
        }
        let callContext = ProviderCallContext(
            instance: instance, kind: kind, baseURL: baseURL, operation: context, logger: logger,
            attemptTimeout: timeout
        )
        do {
            return try await pipeline.chain(request, callContext)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as CardGatewayError where error.provider == nil {
            throw error.attributed(to: instance, kind: kind)
        }
    }

    /// The delay before repeating after `response`, or nil when it must not be repeated.
    func retryDelay(after response: ProviderResponse, request: ProviderRequest, attempt: Int) -> Duration? {
        RetryRules(core: core, retryAdvice: retryAdvice).retryDelay(after: response, request: request, attempt: attempt)
    }

    func makeHTTPRequest(_ request: ProviderRequest, headers: HTTPFields) throws -> HTTPRequest {
        try core.makeHTTPRequest(request, headers: headers)
    }
}

/// What the retry step decides with: the client's fixed settings and the provider's retry advice.
struct RetryRules: Sendable {
    let core: ProviderHTTPClient.Core
    let retryAdvice: @Sendable (ProviderResponse) -> Bool?

    var retry: RetryPolicy { core.retry }

    /// The delay before repeating after `response`, or nil when it must not be repeated.
    func retryDelay(after response: ProviderResponse, request: ProviderRequest, attempt: Int) -> Duration? {
        guard attempt < retry.maxAttempts, request.repeatability != .never else { return nil }
        let advice = retryAdvice(response)
        if advice == false { return nil }
        guard advice == true || retry.retryableStatuses.contains(response.status) else { return nil }
        if let retryAfter = response.retryAfter {
            return retryAfter <= retry.maxRetryAfter ? retryAfter : nil
        }
        return retry.backoff(afterAttempt: attempt, random: core.clock.random())
    }

    /// The back-off after a failure without a response.
    func backoff(afterAttempt attempt: Int) -> Duration {
        retry.backoff(afterAttempt: attempt, random: core.clock.random())
    }

    /// Sleeps for `delay` unless that would pass the caller's deadline; returns whether it slept.
    func wait(_ delay: Duration, context: OperationContext) async throws -> Bool {
        let clock = core.clock
        let wakeUp = clock.now + delay
        if let deadline = context.deadline, wakeUp >= deadline { return false }
        try await clock.sleep(until: wakeUp)
        return true
    }

    func timeoutForAttempt(context: OperationContext, mayHaveReached: Bool) throws -> Duration {
        guard let deadline = context.deadline else { return core.timeout }
        let remaining = deadline - core.clock.now
        guard remaining > .zero else {
            throw CardGatewayError(
                .timeout, "the caller's deadline passed before the provider answered", provider: core.instance,
                providerKind: core.kind,
                mayHaveReachedProvider: mayHaveReached
            )
        }
        return min(core.timeout, remaining)
    }

    /// The error for a request that got no response. It is retryable only when the caller can safely
    /// send it again: never for a write without an idempotency key that may have reached the provider,
    /// whose outcome must be checked first.
    func gatewayError(
        for error: TransportError, request: ProviderRequest, mayHaveReached: Bool, attempts: Int
    ) -> CardGatewayError {
        // A body over the transport's limit is an answer the gateway refuses to read, not a broken connection.
        let code: CardGatewayError.Code =
            error.kind == .timeout ? .timeout : error.kind == .responseTooLarge ? .invalidResponse : .transport
        let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        let ambiguous = request.repeatability == .never && mayHaveReached
        let message =
            ambiguous
            ? "\(error.message) (\(tries)); the request may have reached the provider, so check its outcome before repeating it"
            : "\(error.message) (\(tries))"
        return CardGatewayError(
            code, message, provider: core.instance, providerKind: core.kind,
            isRetryable: !ambiguous && error.kind != .invalidRequest && error.kind != .responseTooLarge,
            mayHaveReachedProvider: mayHaveReached
        )
    }
}

/// Puts one idempotency key on a request that asks for one, and reports it on the response.
struct IdempotencyStep: ProviderMiddleware {
    let maxLength: Int

    func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        guard case .idempotent(let header, let scope) = request.repeatability else {
            return try await next(request, context)
        }
        var request = request
        let key =
            request.headers[header]
            ?? IdempotencyKeys.derive(
                operationKey: context.operation.idempotencyKey, scope: scope, maxLength: maxLength)
        request.headers[header] = key
        var response = try await next(request, context)
        response.idempotencyKey = key
        return response
    }
}

/// Repeats what is safe to repeat, honours `Retry-After` and the caller's deadline, and turns a failure
/// without a response into ``CardGatewayError``.
struct RetryStep: ProviderMiddleware {
    let rules: RetryRules

    func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        let logger = context.logger
        let retry = rules.retry
        var attempt = 0
        var mayHaveReached = false
        while true {
            attempt += 1
            var attemptContext = context
            attemptContext.attempt = attempt
            attemptContext.attemptTimeout = try rules.timeoutForAttempt(
                context: context.operation, mayHaveReached: mayHaveReached)
            do {
                var response = try await next(request, attemptContext)
                response.attempts = attempt
                guard let delay = rules.retryDelay(after: response, request: request, attempt: attempt) else {
                    return response
                }
                guard try await rules.wait(delay, context: context.operation) else { return response }
                logger.notice(
                    "retrying provider request",
                    metadata: [
                        "http.status": .stringConvertible(response.status), "attempt": .stringConvertible(attempt),
                        "delay.ms": .stringConvertible(delay.milliseconds),
                    ])
            } catch let error as TransportError {
                // A caller that gave up is told so, not shown a transport failure.
                if Task.isCancelled { throw CancellationError() }
                mayHaveReached = mayHaveReached || error.mayHaveReachedServer
                let repeatable = request.repeatability != .never || !error.mayHaveReachedServer
                if attempt < retry.maxAttempts && repeatable && error.kind != .invalidRequest
                    && error.kind != .responseTooLarge
                {
                    let delay = rules.backoff(afterAttempt: attempt)
                    if try await rules.wait(delay, context: context.operation) {
                        logger.notice(
                            "retrying provider request",
                            metadata: [
                                "error.kind": .string(error.kind.rawValue), "attempt": .stringConvertible(attempt),
                            ])
                        continue
                    }
                }
                throw rules.gatewayError(
                    for: error, request: request, mayHaveReached: mayHaveReached, attempts: attempt)
            } catch var error as CardGatewayError {
                // A middleware's own verdict (an open breaker, a full bulkhead): passed on, with what earlier
                // attempts may have done.
                error.mayHaveReachedProvider = error.mayHaveReachedProvider || mayHaveReached
                if mayHaveReached && request.repeatability == .never { error.isRetryable = false }
                throw error
            }
        }
    }
}

/// One debug line per attempt, once it ended: "provider attempt" with the method, the path (ids escaped, no
/// query), the attempt number, the status or the transport failure's kind, and the duration. Never a body or a
/// header value.
struct AttemptLogStep: ProviderMiddleware {
    func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        let logger = context.logger
        // The line is debug: below that level nothing is built (the check `logger.debug` makes anyway, made first).
        guard logger.logLevel <= .debug else { return try await next(request, context) }
        let started = ContinuousClock.now
        var metadata: Logger.Metadata = [
            "http.request.method": .string(request.method.rawValue), "url.path": .string(request.path),
            "attempt": .stringConvertible(context.attempt),
        ]
        do {
            let response = try await next(request, context)
            metadata["http.response.status_code"] = .stringConvertible(response.status)
            metadata["duration.ms"] = .stringConvertible((ContinuousClock.now - started).milliseconds)
            logger.debug("provider attempt", metadata: metadata)
            return response
        } catch let error as TransportError {
            metadata["error.type"] = .string(error.kind.rawValue)
            metadata["duration.ms"] = .stringConvertible((ContinuousClock.now - started).milliseconds)
            logger.debug("provider attempt", metadata: metadata)
            throw error
        }
    }
}

extension Duration {
    /// Whole milliseconds (for this package's log lines; not public API).
    package var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}

/// Idempotency keys: one per logical operation, reused across its retries.
public enum IdempotencyKeys: Sendable {
    /// The key for one provider request of an operation. With an operation key, it is derived from it and
    /// `scope` (so the same operation repeated by the caller gets the same key, and two requests of one
    /// operation get different keys); without one, it is a fresh random UUID.
    public static func derive(operationKey: String?, scope: String, maxLength: Int = 64) -> String {
        guard let operationKey, !operationKey.isEmpty else {
            return String(UUID().uuidString.lowercased().prefix(maxLength))
        }
        let digest = MessageAuthentication.sha256(Data("\(operationKey)\u{0}\(scope)".utf8))
        return String(ByteEncoding.hex(digest).prefix(max(16, min(maxLength, 64))))
    }
}
