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

/// A configured provider instance, ready to use.
public struct ProviderInstance: Sendable {
    public let name: String
    public let configuration: ProviderInstanceConfiguration
    public let provider: any CardProvider
    /// The instance's circuit breaker: its ``CircuitBreaker/state`` says whether calls go through.
    public let breaker: CircuitBreaker
    /// The instance's limit on requests in flight.
    public let bulkhead: Bulkhead
    /// The operation timer and counter per operation and outcome, made once.
    let operationMetrics: MetricCache

    public var kind: ProviderKind { configuration.kind }
    public var descriptor: ProviderDescriptor { provider.descriptor }
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
        let built = Self.buildInstances(
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

    /// Every problem the adapters find in a configuration that loaded: what `GatewayConfiguration.load` cannot
    /// know (a Stripe live key in a sandbox instance, a Trust Payments max age of 0…), each with the instance's
    /// path. Builds each adapter once, sending nothing. Empty when a gateway can be built from `configuration`.
    public static func problems(
        in configuration: GatewayConfiguration, registry: ProviderRegistry
    ) -> [ConfigurationProblem] {
        buildInstances(
            configuration: configuration, registry: registry, transport: RefusingTransport(),
            logger: OperationContext.noopLogger,
            credentialStore: InMemoryCredentialReferenceStore(), now: { Date() }, clock: .system,
            middlewares: { _ in .none },
            observability: GatewayObservability(metrics: NOOPMetricsHandler.instance, tracer: NoOpTracer())
        ).problems
    }

    /// Builds every instance, collecting the problems of all of them rather than stopping at the first.
    private static func buildInstances(
        configuration: GatewayConfiguration, registry: ProviderRegistry, transport: any HTTPTransport, logger: Logger,
        credentialStore: any CredentialReferenceStore, now: @escaping @Sendable () -> Date, clock: GatewayClock,
        middlewares: @Sendable (ProviderInstanceConfiguration) -> InstanceMiddlewares,
        observability: GatewayObservability
    ) -> (instances: [String: ProviderInstance], problems: [ConfigurationProblem]) {
        var instances: [String: ProviderInstance] = [:]
        var problems: [ConfigurationProblem] = []
        for (name, instanceConfiguration) in configuration.providers.sorted(by: { $0.key < $1.key }) {
            let path = "providers.\(name)"
            guard let factory = registry.factory(for: instanceConfiguration.kind) else {
                problems.append(
                    ConfigurationProblem(
                        path: path + ".kind", message: "no adapter is registered for \(instanceConfiguration.kind)"))
                continue
            }
            var instanceLogger = logger
            instanceLogger[metadataKey: "cardgateway.provider"] = .string(name)
            let configured: InstanceMiddlewares
            do {
                configured = try Self.configuredMiddlewares(instanceConfiguration.middlewares, registry: registry)
            } catch let problem as ConfigurationProblem {
                problems.append(
                    ConfigurationProblem(path: "\(path).middlewares\(problem.path)", message: problem.message))
                continue
            } catch {
                problems.append(
                    ConfigurationProblem(path: path + ".middlewares", message: "a middleware could not be built"))
                continue
            }
            let added = middlewares(instanceConfiguration)
            let dimensions = [
                (GatewayObservability.Dimensions.kind, instanceConfiguration.kind.name),
                (GatewayObservability.Dimensions.instance, name),
            ]
            let metrics = observability.metrics
            let breakerGauge = Gauge(
                label: GatewayObservability.Names.breakerState, dimensions: dimensions, factory: metrics)
            breakerGauge.record(0)
            let breaker = CircuitBreaker(
                instance: name, settings: instanceConfiguration.circuitBreaker, logger: instanceLogger, clock: clock,
                onStateChange: { _, to in
                    switch to {
                    case .closed: breakerGauge.record(0)
                    case .halfOpen: breakerGauge.record(1)
                    case .open: breakerGauge.record(2)
                    }
                    Counter(
                        label: GatewayObservability.Names.breakerTransitions,
                        dimensions: dimensions + [(GatewayObservability.Dimensions.to, to.name)], factory: metrics
                    )
                    .increment()
                })
            let bulkhead = Bulkhead(
                instance: name, limit: instanceConfiguration.maxConcurrentRequests,
                maxWaiting: instanceConfiguration.maxWaitingRequests, clock: clock,
                observer: GatewayObservability.bulkheadObserver(dimensions: dimensions, factory: metrics)
            )
            let gatewaySteps = GatewayAttemptSteps(
                breaker: breaker, bulkhead: bulkhead, observability: observability,
                propagatesTraceContext: instanceConfiguration.propagateTraceContext)
            let http: ProviderHTTPClient
            do {
                http = try ProviderHTTPClient(
                    instance: name, kind: instanceConfiguration.kind, baseURL: instanceConfiguration.baseURL,
                    transport: transport, timeout: instanceConfiguration.timeout, retry: instanceConfiguration.retry,
                    logger: instanceLogger, clock: clock,
                    gatewaySteps: gatewaySteps, requestMiddlewares: configured.request + added.request,
                    attemptMiddlewares: configured.attempt + added.attempt
                )
            } catch let error as CardGatewayError {
                problems.append(ConfigurationProblem(path: path + ".baseURL", message: error.message))
                continue
            } catch {
                problems.append(ConfigurationProblem(path: path + ".baseURL", message: "the base URL cannot be used"))
                continue
            }
            do {
                let setup = ProviderSetup(
                    configuration: instanceConfiguration, http: http, logger: instanceLogger,
                    credentialStore: credentialStore, now: now)
                let provider = try factory.make(setup)
                let operationMetrics = MetricCache(
                    factory: metrics, timerLabel: GatewayObservability.Names.operationDuration,
                    counterLabel: GatewayObservability.Names.operations
                )
                instances[name] = ProviderInstance(
                    name: name, configuration: instanceConfiguration, provider: provider, breaker: breaker,
                    bulkhead: bulkhead, operationMetrics: operationMetrics
                )
            } catch let error as CardGatewayError {
                if error.fieldErrors.isEmpty {
                    problems.append(ConfigurationProblem(path: path, message: error.message))
                } else {
                    problems += error.fieldErrors.map {
                        ConfigurationProblem(
                            path: $0.field.hasPrefix(path) ? $0.field : "\(path).\($0.field)", message: $0.message)
                    }
                }
            } catch {
                problems.append(
                    ConfigurationProblem(path: path, message: "the adapter could not be built (\(type(of: error)))"))
            }
        }
        return (instances, problems)
    }

    /// Builds the middlewares an instance's configuration names, split by placement. Throws a
    /// ``ConfigurationProblem`` whose path is relative to the `middlewares` array (`[0].name`).
    private static func configuredMiddlewares(
        _ references: [MiddlewareReference], registry: ProviderRegistry
    ) throws -> InstanceMiddlewares {
        var built = InstanceMiddlewares()
        for (index, reference) in references.enumerated() {
            guard let factory = registry.middlewareFactory(named: reference.name) else {
                throw ConfigurationProblem(
                    path: "[\(index)].name",
                    message: "no middleware is registered as \"\(SafeText.scrub(reference.name, maxLength: 60))\"")
            }
            let middleware: any ProviderMiddleware
            do { middleware = try factory.make(reference.options) } catch let error as CardGatewayError {
                throw ConfigurationProblem(path: "[\(index)].options", message: error.message)
            }
            switch factory.placement {
            case .attempt: built.attempt.append(middleware)
            default: built.request.append(middleware)
            }
        }
        return built
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
            timer.recordNanoseconds(AttemptTelemetryMiddleware.nanoseconds(ContinuousClock.now - started))
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

    // MARK: Cards

    public func card(
        _ ref: CardRef, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        let (instance, provider) = try capability((any CardLookup).self, target, .card, context: context)
        var card = try await attributed(instance, .card) { try await provider.card(ref, context: context) }
        card.provider = instance.name
        return card
    }

    public func listCards(
        _ query: CardQuery, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> CardPage {
        let (instance, provider) = try capability((any CardListing).self, target, .listCards, context: context)
        try CardGateway.check(query).throwIfAny()
        var page = try await attributed(instance, .listCards) { try await provider.listCards(query, context: context) }
        for index in page.cards.indices { page.cards[index].provider = instance.name }
        return page
    }

    /// The largest page ``listCards(_:via:context:)`` asks for; providers cap it lower where they must.
    public static let listLimitRange = 1...100

    static func check(_ query: CardQuery) -> ValidationProblems {
        var problems = ValidationProblems()
        if let limit = query.limit {
            problems.require(
                listLimitRange.contains(limit), "limit",
                "must be from \(listLimitRange.lowerBound) to \(listLimitRange.upperBound)")
        }
        problems.require(query.offset >= 0, "offset", "must not be negative")
        if let cursor = query.cursor {
            problems.require(Self.isPlainToken(cursor), "cursor", "must be 1 to 255 printable ASCII characters")
        }
        return problems
    }

    static func isPlainToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    public func createCard(
        _ request: CreateCardRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        let (instance, provider) = try capability((any CardIssuance).self, target, .createCard, context: context)
        var card = try await ledgeredCard(
            .createCard, instance, provider: provider,
            fingerprint: LedgerFingerprint.createCard(request, instance: instance.name), context: context
        ) {
            try await attributed(instance, .createCard) { try await provider.createCard(request, context: context) }
        }
        card.provider = instance.name
        return card
    }

    public func activateCard(
        _ request: ActivateCardRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        let (instance, provider) = try capability((any CardActivation).self, target, .activateCard, context: context)
        var card = try await ledgeredCard(
            .activateCard, instance, provider: provider,
            fingerprint: LedgerFingerprint.activateCard(request, instance: instance.name), context: context
        ) {
            try await attributed(instance, .activateCard) { try await provider.activateCard(request, context: context) }
        }
        card.provider = instance.name
        return card
    }

    /// Locks, unlocks or cancels a card, routed as ``GatewayOperation/lockCard``, ``GatewayOperation/unlockCard`` or
    /// ``GatewayOperation/cancelCard``. A change the card's state does not allow is `invalidCardState` for every
    /// provider; see docs/LIFECYCLE.md for what each provider sends and the status that results.
    public func changeCardStatus(
        _ change: CardStatusRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        let operation = change.intent.operation
        let (instance, provider) = try capability((any CardStatusControl).self, target, operation, context: context)
        var card = try await ledgeredCard(
            operation, instance, provider: provider,
            fingerprint: LedgerFingerprint.statusChange(change, instance: instance.name), context: context
        ) {
            try await attributed(instance, operation) { try await provider.changeStatus(change, context: context) }
        }
        card.provider = instance.name
        return card
    }

    public func lockCard(
        _ card: CardRef, reason: CardStatusReason? = nil, via target: RouteTarget,
        context: OperationContext = OperationContext()
    ) async throws -> Card {
        try await changeCardStatus(
            CardStatusRequest(card: card, intent: .lock, reason: reason), via: target, context: context)
    }

    public func unlockCard(
        _ card: CardRef, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        try await changeCardStatus(CardStatusRequest(card: card, intent: .unlock), via: target, context: context)
    }

    public func cancelCard(
        _ card: CardRef, reason: CardStatusReason? = nil, via target: RouteTarget,
        context: OperationContext = OperationContext()
    ) async throws -> Card {
        try await changeCardStatus(
            CardStatusRequest(card: card, intent: .cancel, reason: reason), via: target, context: context)
    }

    public func setCardPIN(
        _ request: SetCardPINRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        let (instance, provider) = try capability((any CardPINManagement).self, target, .setCardPIN, context: context)
        var card = try await ledgeredCard(
            .setCardPIN, instance, provider: provider,
            fingerprint: LedgerFingerprint.setPIN(request, instance: instance.name), context: context
        ) {
            try await attributed(instance, .setCardPIN) { try await provider.setPIN(request, context: context) }
        }
        card.provider = instance.name
        return card
    }

    /// A status or PIN change in the shape of Paysafe's update call: `.status(.locked)` locks, `.status(.active)`
    /// unlocks, `.status(.cancelled)` cancels and `.pin` sets the PIN. Other statuses cannot be requested.
    public func updateCard(
        _ request: UpdateCardRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> Card {
        switch request.change {
        case .pin(let pin):
            return try await setCardPIN(SetCardPINRequest(card: request.card, pin: pin), via: target, context: context)
        case .status(let status, let comment):
            let intent: CardStatusIntent
            switch status {
            case .locked: intent = .lock
            case .active: intent = .unlock
            case .cancelled: intent = .cancel
            default:
                throw CardGatewayError.invalidRequest(
                    "a card can be changed to locked, active or cancelled, not \(status)", field: "status")
            }
            return try await changeCardStatus(
                CardStatusRequest(card: request.card, intent: intent, comment: comment), via: target, context: context)
        }
    }

    public func programs(
        customer: String?, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> [CardProgram] {
        let (instance, provider) = try capability((any CardPrograms).self, target, .programs, context: context)
        return try await attributed(instance, .programs) {
            try await provider.programs(customer: customer, context: context)
        }
    }

    // MARK: Wallet tokens

    /// Every token the card's provider holds for it in mobile wallets.
    public func walletTokens(
        of card: CardRef, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> [WalletToken] {
        let (instance, provider) = try capability(
            (any WalletTokenListing).self, target, .listWalletTokens, context: context)
        return try await attributed(instance, .listWalletTokens) {
            try await provider.walletTokens(of: card, context: context)
        }
    }

    /// Suspends, resumes or deletes one wallet token, routed as ``GatewayOperation/suspendWalletToken``,
    /// ``GatewayOperation/resumeWalletToken`` or ``GatewayOperation/deleteWalletToken``.
    public func changeWalletToken(
        _ change: WalletTokenRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> WalletToken {
        let operation = change.intent.operation
        let (instance, provider) = try capability((any WalletTokenControl).self, target, operation, context: context)
        return try await ledgered(
            operation, instance, fingerprint: LedgerFingerprint.walletTokenChange(change, instance: instance.name),
            context: context,
            encode: { try Self.ledgerEncoder.encode($0) },
            replay: { try Self.ledgerDecoder.decode(WalletToken.self, from: $0) }
        ) {
            try await attributed(instance, operation) { try await provider.changeWalletToken(change, context: context) }
        }
    }

    // MARK: Wallet provisioning

    public func provisioningOffer(
        for card: CardRef, wallet: Wallet, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> ProvisioningOffer {
        let (instance, provider) = try capability(
            (any WalletProvisioning).self, withWallet(target, wallet), .provisioningOffer, context: context)
        return try await journaled(.provisioningOffer, instance, card: card.id, wallet: wallet, context: context) {
            try await offer(for: card, wallet: wallet, instance: instance, provider: provider, context: context)
        }
    }

    private func offer(
        for card: CardRef, wallet: Wallet, instance: ProviderInstance, provider: any WalletProvisioning,
        context: OperationContext
    ) async throws -> ProvisioningOffer {
        guard let flow = instance.descriptor.provisioningFlows[wallet] else {
            let card = try await attributed(instance, .provisioningOffer) {
                try await provider.card(card, context: context)
            }
            return ProvisioningOffer(
                card: card.ref, provider: instance.name, wallet: wallet, eligible: false,
                ineligibleReason: .walletNotSupported(wallet),
                flow: nil, cardholderName: card.cardholderName, lastFour: card.lastFour, network: card.scheme,
                expiry: card.expiry,
                existingTokens: card.walletTokens
            )
        }
        var offer = try await attributed(instance, .provisioningOffer) {
            try await provider.offer(for: card, wallet: wallet, context: context)
        }
        offer.provider = instance.name
        if offer.flow == nil { offer.flow = flow }
        return offer
    }

    public func provision(
        _ request: ProvisioningRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> ProvisioningResponse {
        let (instance, provider) = try capability(
            (any WalletProvisioning).self, withWallet(target, request.wallet), .provision, context: context)
        guard let flow = instance.descriptor.provisioningFlows[request.wallet] else {
            throw CardGatewayError(
                .unsupported, "\(instance.name) (\(instance.kind)) does not provision cards to \(request.wallet)",
                provider: instance.name, providerKind: instance.kind)
        }
        guard flow == request.input.flow else {
            throw CardGatewayError.invalidRequest(
                "\(instance.name) provisions \(request.wallet) by the \(flow) flow, but the request carries \(request.input.flow) input",
                field: "input")
        }
        // A malformed chain, an empty nonce or an id with a control character is refused before any provider is asked.
        try ProvisioningInputChecks.problems(in: request).throwIfAny()
        return try await journaled(
            .provision, instance, card: request.card.id, wallet: request.wallet, context: context
        ) {
            try await attributed(instance, .provision) { try await provider.provision(request, context: context) }
        }
    }

    public func confirmProvisioning(
        _ confirmation: ProvisioningConfirmation, via target: RouteTarget,
        context: OperationContext = OperationContext()
    ) async throws {
        let (instance, provider) = try capability(
            (any WalletProvisioning).self, withWallet(target, confirmation.wallet), .confirmProvisioning,
            context: context)
        try await journaled(
            .confirmProvisioning, instance, card: confirmation.card.id, wallet: confirmation.wallet, context: context
        ) {
            try await ledgered(
                .confirmProvisioning, instance,
                fingerprint: LedgerFingerprint.confirmProvisioning(confirmation, instance: instance.name),
                context: context,
                encode: { Data("{}".utf8) }, replay: { _ in },
                send: {
                    try await attributed(instance, .confirmProvisioning) {
                        try await provider.confirm(confirmation, context: context)
                    }
                }
            )
        }
    }

    private func withWallet(_ target: RouteTarget, _ wallet: Wallet) -> RouteTarget {
        guard case .key(var key) = target else { return target }
        if key.wallet == nil { key.wallet = wallet }
        return .key(key)
    }

    // MARK: Stored credentials

    public func clientSession(
        _ request: ClientSessionRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> ClientSession {
        let (instance, provider) = try capability(
            (any StoredCredentials).self, target, .clientSession, context: context)
        let reference = request.intent.reference
        return try await journaled(.clientSession, instance, card: reference, context: context) {
            try await attributed(instance, .clientSession) {
                try await provider.clientSession(request, context: context)
            }
        }
    }

    /// Verifies the SDK's result and keeps the reference in the credential store.
    public func verifyResult(
        _ token: Secret, customer: String? = nil, via target: RouteTarget,
        context: OperationContext = OperationContext()
    ) async throws -> StoredCredential {
        let (instance, provider) = try capability((any StoredCredentials).self, target, .verifyResult, context: context)
        return try await journaled(.verifyResult, instance, card: nil, context: context) {
            try await verifyAndKeep(
                token, customer: customer, consent: nil, instance: instance, provider: provider, context: context)
        }
    }

    /// The same, keeping when the cardholder consented to storing the card (the consent given with the store
    /// session) with the reference, as the card schemes require it recorded.
    public func verifyResult(
        _ token: Secret, customer: String? = nil, consent: CardholderConsent?, via target: RouteTarget,
        context: OperationContext = OperationContext()
    ) async throws -> StoredCredential {
        let (instance, provider) = try capability((any StoredCredentials).self, target, .verifyResult, context: context)
        return try await journaled(.verifyResult, instance, card: nil, context: context) {
            try await verifyAndKeep(
                token, customer: customer, consent: consent, instance: instance, provider: provider, context: context)
        }
    }

    private func verifyAndKeep(
        _ token: Secret, customer: String?, consent: CardholderConsent?, instance: ProviderInstance,
        provider: any StoredCredentials,
        context: OperationContext
    ) async throws -> StoredCredential {
        var credential = try await attributed(instance, .verifyResult) {
            try await provider.verifyResult(token, context: context)
        }
        credential.provider = instance.name
        if credential.customer == nil { credential.customer = customer }
        if let consent { credential.consentRecordedAt = consent.recordedAt }
        do {
            try await credentialStore.save(credential)
        } catch let error as CardGatewayError {
            throw error.attributed(to: instance.name, kind: instance.kind)
        } catch {
            // The result was verified but not kept: the caller must not treat the card as stored.
            throw CardGatewayError(
                .providerUnavailable,
                "the verified credential \(credential.reference) could not be saved in the credential store (\(type(of: error)))",
                provider: instance.name, providerKind: instance.kind, isRetryable: true
            )
        }
        return credential
    }

    public func charge(
        _ request: ChargeRequest, via target: RouteTarget, context: OperationContext = OperationContext()
    ) async throws -> ChargeResult {
        let (instance, provider) = try capability((any StoredCredentials).self, target, .charge, context: context)
        return try await journaled(.charge, instance, card: request.reference, context: context) {
            try await ledgered(
                .charge, instance, fingerprint: LedgerFingerprint.charge(request, instance: instance.name),
                context: context,
                encode: { try Self.ledgerEncoder.encode($0) },
                replay: { try Self.ledgerDecoder.decode(ChargeResult.self, from: $0) },
                send: {
                    let result = try await attributed(instance, .charge) {
                        try await provider.charge(request, context: context)
                    }
                    await markUsed(request.reference, instance: instance, context: context)
                    return result
                }
            )
        }
    }

    // MARK: Webhooks

    /// Verifies a webhook for the named instance (webhooks arrive per provider endpoint, not per card).
    public func verifyWebhook(
        _ delivery: WebhookDelivery, instance name: String, now: Date = Date()
    ) throws -> [GatewayEvent] {
        let instance = try resolve(.instance(name), operation: .webhook)
        guard let verifier = instance.provider as? any WebhookVerifying else {
            throw CardGatewayError(
                .unsupported, "\(name) does not verify webhooks", provider: name, providerKind: instance.kind)
        }
        var outcome = "accepted"
        defer {
            Counter(
                label: GatewayObservability.Names.webhooks,
                dimensions: [
                    (GatewayObservability.Dimensions.kind, instance.kind.name),
                    (GatewayObservability.Dimensions.instance, name),
                    (GatewayObservability.Dimensions.outcome, outcome),
                ],
                factory: observability.metrics
            ).increment()
        }
        do {
            return try verifier.verify(delivery, now: now).map { event in
                var event = event
                event.provider = name
                return event
            }
        } catch let error as CardGatewayError {
            outcome = error.code.rawValue
            throw error.attributed(to: name, kind: instance.kind)
        } catch {
            outcome = CardGatewayError.Code.signatureInvalid.rawValue
            throw CardGatewayError(
                .signatureInvalid, "the \(instance.kind) webhook could not be verified (\(type(of: error)))",
                provider: name, providerKind: instance.kind
            )
        }
    }
}
