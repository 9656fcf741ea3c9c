import CoreMetrics
import Foundation
import Logging
import Tracing

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

extension CardGateway {
    /// Every problem the adapters find in a configuration that loaded: what `GatewayConfiguration.load` cannot
    /// know (a Stripe live key in a sandbox instance, a Trust Payments max age of 0…), each with the instance's
    /// path. Builds each adapter once, sending nothing. Empty when a gateway can be built from `configuration`.
    public static func problems(
        in configuration: GatewayConfiguration, registry: ProviderRegistry
    ) -> [ConfigurationProblem] {
        ProviderInstances.build(
            configuration: configuration, registry: registry, transport: RefusingTransport(),
            logger: OperationContext.noopLogger,
            credentialStore: InMemoryCredentialReferenceStore(), now: { Date() }, clock: .system,
            middlewares: { _ in .none },
            observability: GatewayObservability(metrics: NOOPMetricsHandler.instance, tracer: NoOpTracer())
        ).problems
    }
}

/// Makes a gateway's provider instances from its configuration: for each instance its breaker, bulkhead, request
/// chain and adapter, and the problems of every instance that cannot be built.
enum ProviderInstances {
    /// Builds every instance, collecting the problems of all of them rather than stopping at the first.
    static func build(
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
                configured = try InstanceMiddlewares(configured: instanceConfiguration.middlewares, registry: registry)
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
}
