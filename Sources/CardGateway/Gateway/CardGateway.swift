import Foundation
import CoreMetrics
import Logging
import Tracing

/// How a call picks its provider instance: by routing a key, or by naming the instance.
public enum RouteTarget: Sendable, Equatable, CustomStringConvertible {
    case key(RouteKey)
    case instance(String)

    public var description: String {
        switch self {
        case .key(let key): return "key(\(key))"
        case .instance(let name): return "instance(\(name))"
        }
    }
}

/// The gateway: every capability of every configured provider, through the router.
///
/// ```swift
/// var registry = ProviderRegistry()
/// registry.register(.stripe)
/// let configuration = try GatewayConfiguration.load(contentsOf: url, registry: registry)
/// let gateway = try CardGateway(configuration: configuration, registry: registry)   // CardGatewayAsyncHTTPClient's default transport
/// let offer = try await gateway.provisioningOffer(for: CardRef(id: "ic_123"), wallet: .applePay,
///                                                 via: .key(RouteKey(issuer: "stripe-us")))
/// ```
public struct CardGateway: Sendable {
    public let configuration: GatewayConfiguration
    public let router: Router
    public let instances: [String: ProviderInstance]
    public let credentialStore: any CredentialReferenceStore
    /// Where metrics and spans go.
    public let observability: GatewayObservability
    /// The one clock and random source of every breaker, bulkhead, retry back-off and deadline, and of the default
    /// ledger's leases (see ``GatewayClock``).
    public let clock: GatewayClock
    private let logger: Logger
    /// Where writes with an idempotency key are recorded, so each reaches its provider at most once; in memory (on
    /// the gateway's ``clock``) unless set with ``using(ledger:journal:ledgerPolicy:)``.
    public internal(set) var operationLedger: any OperationLedger
    /// Where wallet and stored-credential operations are journaled; in memory unless set with ``using(ledger:journal:ledgerPolicy:)``.
    public internal(set) var provisioningJournal: any ProvisioningJournal = InMemoryProvisioningJournal()
    public internal(set) var ledgerPolicy: LedgerPolicy = .default

    /// Builds one adapter per configured instance.
    ///
    /// - Parameters:
    ///   - configuration: the loaded configuration: provider instances and routes.
    ///   - registry: the provider kinds (and middlewares) this program links; every instance's kind must be in it.
    ///   - transport: how requests travel. `CardGatewayAsyncHTTPClient` has the default one
    ///     (`AsyncHTTPClientTransport`) and an initialiser without this parameter that uses it.
    ///   - logger: where the gateway logs (never secrets or card data); nothing by default.
    ///   - credentialStore: where stored-credential references are kept; in memory by default.
    ///   - now: the wall clock adapters read (webhook freshness, key expiry); by default `clock`'s
    ///     ``GatewayClock/date``. A fixed date in tests that check a provider's signed timestamps.
    ///   - clock: the one clock and random source of the breakers' cool-downs, the bulkheads' waits, the retry
    ///     back-off and its jitter, the callers' deadlines and the default ledger's leases; ``GatewayClock/system``
    ///     by default, a manual clock in tests (`CardGatewayTesting`'s `ManualClock`).
    ///   - middlewares: middlewares this program adds to an instance in code, run after those its configuration
    ///     names (see ``ProviderMiddleware`` for where each placement runs); none by default.
    ///   - observability: where metrics and spans go; by default what the program bootstrapped.
    public init(
        configuration: GatewayConfiguration, registry: ProviderRegistry, transport: any HTTPTransport,
        logger: Logger = OperationContext.noopLogger,
        credentialStore: any CredentialReferenceStore = InMemoryCredentialReferenceStore(),
        now: (@Sendable () -> Date)? = nil, clock: GatewayClock = .system,
        middlewares: @Sendable (ProviderInstanceConfiguration) -> InstanceMiddlewares = { _ in .none },
        observability: GatewayObservability = .bootstrapped
    ) throws {
        let built = ProviderInstances.build(
            configuration: configuration, registry: registry, transport: transport, logger: logger,
            credentialStore: credentialStore,
            now: now ?? { clock.date }, clock: clock, middlewares: middlewares, observability: observability
        )
        guard built.problems.isEmpty else { throw ConfigurationError(problems: built.problems).gatewayError }
        self.configuration = configuration
        self.router = Router(routes: configuration.routes)
        self.instances = built.instances
        self.credentialStore = credentialStore
        self.observability = observability
        self.clock = clock
        self.operationLedger = InMemoryOperationLedger(clock: clock)
        self.logger = logger
    }

    public func instance(named name: String) -> ProviderInstance? { instances[name] }

    /// Which route a key takes, and why the routes before it did not match.
    public func explain(_ key: RouteKey) -> RouteExplanation { router.explain(key) }

    /// The instance that serves `operation` for `target`. Throws `invalidRequest` when no route matches or the
    /// instance is unknown, and `unsupported` when the chosen instance lacks the capability (a card is never
    /// sent on to another provider that did not issue it).
    public func resolve(_ target: RouteTarget, operation: GatewayOperation) throws -> ProviderInstance {
        let instance: ProviderInstance
        switch target {
        case .instance(let name):
            guard let named = instances[name] else {
                throw CardGatewayError.invalidRequest(
                    "no provider instance is named \"\(name)\"; configured: \(instances.keys.sorted().joined(separator: ", "))",
                    field: "provider")
            }
            instance = named
        case .key(var key):
            key.operation = operation
            guard let match = router.match(key) else {
                throw CardGatewayError(
                    .invalidRequest, "no route matches \(key); see explain(_:) for each route's verdict")
            }
            guard let routed = instances[match.instance] else {
                throw CardGatewayError(
                    .invalidConfiguration,
                    "routes[\(match.routeIndex)] names \(match.instance), which is not configured")
            }
            instance = routed
        }
        guard instance.descriptor.supports(operation) else {
            throw CardGatewayError(
                .unsupported,
                "\(instance.name) (\(instance.kind)) cannot serve \(operation): it lacks the \(operation.capability) capability",
                provider: instance.name, providerKind: instance.kind
            )
        }
        return instance
    }

    func capability<P: Sendable>(
        _ type: P.Type, _ target: RouteTarget, _ operation: GatewayOperation, context: OperationContext
    ) throws -> (ProviderInstance, P) {
        // An idempotency key or request id with a line break or a NUL is refused before anything is routed or sent.
        try context.problems().throwIfAny()
        let instance = try resolve(target, operation: operation)
        guard let provider = instance.provider as? P else {
            throw CardGatewayError(
                .unsupported,
                "\(instance.name) (\(instance.kind)) declares \(operation.capability) but does not implement it",
                provider: instance.name, providerKind: instance.kind)
        }
        return (instance, provider)
    }

    /// Runs `body` in the operation's span, records its duration and outcome, and names the instance in any
    /// error it throws.
    func attributed<T>(
        _ instance: ProviderInstance, _ operation: GatewayOperation, _ body: () async throws -> T
    ) async throws -> T {
        let started = ContinuousClock.now
        var failure: (any Error)?
        defer {
            let outcome = GatewayObservability.outcome(of: failure)
            let (timer, counter) = instance.operationMetrics.metrics(
                MetricCache.Key(first: operation.rawValue, second: outcome, third: "")
            ) {
                [
                    (GatewayObservability.Dimensions.kind, instance.kind.name),
                    (GatewayObservability.Dimensions.instance, instance.name),
                    (GatewayObservability.Dimensions.operation, operation.rawValue),
                    (GatewayObservability.Dimensions.outcome, outcome),
                ]
            }
            timer.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
            counter.increment()
            if let failure {
                logger.warning(
                    "gateway operation failed",
                    metadata: [
                        "cardgateway.provider": .string(instance.name),
                        "cardgateway.operation": .string(operation.rawValue),
                        "cardgateway.outcome": .string(GatewayObservability.outcome(of: failure)),
                    ])
            }
        }
        do {
            return try await observability.span(
                Self.spanNames[operation] ?? "cardgateway.\(operation.rawValue)", ofKind: .internal
            ) { span in
                // A span that records nothing (the no-op tracer's) is not given attributes it would throw away.
                if let span, span.isRecording {
                    span.attributes["cardgateway.provider.instance"] = instance.name
                    span.attributes["cardgateway.provider.kind"] = instance.kind.name
                    span.attributes["cardgateway.operation"] = operation.rawValue
                }
                do {
                    let value = try await attributedBody(instance, body)
                    if let span, span.isRecording { span.attributes["cardgateway.outcome"] = "success" }
                    return value
                } catch {
                    if let span, span.isRecording {
                        span.attributes["cardgateway.outcome"] = GatewayObservability.outcome(of: error)
                        if let gatewayError = error as? CardGatewayError, let requestID = gatewayError.requestID {
                            span.attributes["cardgateway.provider.request_id"] = requestID
                        }
                    }
                    throw error
                }
            }
        } catch {
            failure = error
            throw error
        }
    }

    /// `cardgateway.<operation>` for every operation, built once.
    private static let spanNames: [GatewayOperation: String] = Dictionary(
        uniqueKeysWithValues: GatewayOperation.allCases.map { ($0, "cardgateway.\($0.rawValue)") }
    )

    private func attributedBody<T>(_ instance: ProviderInstance, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CardGatewayError {
            throw error.attributed(to: instance.name, kind: instance.kind)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // Nothing is known about what happened, so nothing invites a blind repeat.
            throw CardGatewayError(
                .transport,
                "the \(instance.kind) adapter failed unexpectedly (\(type(of: error))); check the outcome before repeating",
                provider: instance.name, providerKind: instance.kind, isRetryable: false, mayHaveReachedProvider: true
            )
        }
    }
}
