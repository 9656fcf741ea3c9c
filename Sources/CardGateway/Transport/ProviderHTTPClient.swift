import Foundation
import HTTPTypes
import Logging

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
    /// The user's middlewares that run once per attempt, inside the retry step, after the gateway's own breaker,
    /// bulkhead and attempt telemetry (which a gateway adds for every instance, and which are not in this list).
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

        /// Composes the chain (``ProviderChain``, the one place that orders its steps).
        init(core: Core, settings: Settings) {
            self.settings = settings
            self.chain = ProviderChain.compose(core: core, settings: settings)
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
        /// The gateway's own per-attempt steps of this instance (its breaker, bulkhead and attempt telemetry); nil
        /// for a client built without a gateway.
        let gatewaySteps: GatewayAttemptSteps?
        /// The base URL's scheme, authority and path, split once (nil when the URL has no scheme or host, which
        /// ``makeHTTPRequest(_:)`` reports on every request, as it always did).
        let endpoint: Endpoint?

        /// `request` as the transport takes it (``TransportConversion/httpRequest(_:endpoint:instance:kind:)``).
        func makeHTTPRequest(_ request: ProviderRequest) throws -> HTTPRequest {
            try TransportConversion.httpRequest(request, endpoint: endpoint, instance: instance, kind: kind)
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
        try self.init(
            instance: instance, kind: kind, baseURL: baseURL, transport: transport, timeout: timeout, retry: retry,
            logger: logger, idempotencyKeyMaxLength: idempotencyKeyMaxLength, retryAdvice: retryAdvice, clock: clock,
            gatewaySteps: nil, requestMiddlewares: requestMiddlewares, attemptMiddlewares: attemptMiddlewares)
    }

    /// The gateway's initialiser: the same, with the instance's breaker, bulkhead and attempt telemetry, which
    /// ``ProviderChain`` puts first among the attempt steps.
    init(
        instance: String, kind: ProviderKind, baseURL: URL, transport: any HTTPTransport, timeout: Duration,
        retry: RetryPolicy, logger: Logger, idempotencyKeyMaxLength: Int = 64,
        retryAdvice: @escaping @Sendable (ProviderResponse) -> Bool? = { _ in nil }, clock: GatewayClock,
        gatewaySteps: GatewayAttemptSteps?, requestMiddlewares: [any ProviderMiddleware],
        attemptMiddlewares: [any ProviderMiddleware]
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
            gatewaySteps: gatewaySteps, endpoint: Endpoint(baseURL)
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
        // A logger that drops everything (no logger given) is not given metadata.
        if !(logger.handler is SwiftLogNoOpLogHandler) {
            // Written to the handler once, not key by key: a handler may redo work on every write (swift-log's
            // StreamLogHandler renders its whole metadata string again each time): about 7 µs of the provisioning
            // server's card read key by key, 1 µs at once (perf: 1.5 % of its CPU, then 0.4 %; docs/LOAD.md).
            var metadata = logger.handler.metadata
            metadata["cardgateway.provider"] = .string(instance)
            metadata["cardgateway.provider.kind"] = .string(kind.name)
            metadata["cardgateway.operation"] = .string(request.operation)
            if let requestID = context.requestID { metadata["request.id"] = .string(requestID) }
            logger.handler.metadata = metadata
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

    func makeHTTPRequest(_ request: ProviderRequest) throws -> HTTPRequest {
        try core.makeHTTPRequest(request)
    }
}
