import Foundation

/// One provider instance from configuration, with its secrets resolved.
public struct ProviderInstanceConfiguration: Sendable {
    public var name: String
    public var kind: ProviderKind
    public var environment: String?
    /// The environment's documented base URL, or the `baseURL` override.
    public var baseURL: URL
    public var credentials: [String: Secret]
    public var options: [String: JSONValue]
    public var timeout: Duration
    public var retry: RetryPolicy
    /// The middlewares configuration names for this instance, in order, by their registered names.
    public var middlewares: [MiddlewareReference]
    /// The instance's circuit breaker (on by default).
    public var circuitBreaker: CircuitBreakerSettings
    /// The most requests the instance may have in flight at once (its bulkhead; 1,024 by default, see ``Bulkhead``).
    public var maxConcurrentRequests: Int
    /// The most calls that may wait for one of those slots at once; a call beyond it fails at once with a
    /// retryable `providerUnavailable` (1,024 by default; 0: no waiting).
    public var maxWaitingRequests: Int
    /// Whether provider requests carry the trace context (W3C `traceparent` with an OpenTelemetry tracer). Off
    /// by default.
    public var propagateTraceContext: Bool
    /// How the instance answers real-time authorizations (its `authorizations` object): the stand-in and the
    /// decider's budget.
    public var authorizations: AuthorizationSettings = .default

    public init(
        name: String, kind: ProviderKind, environment: String?, baseURL: URL, credentials: [String: Secret],
        options: [String: JSONValue] = [:], timeout: Duration = .seconds(30), retry: RetryPolicy = .default,
        middlewares: [MiddlewareReference] = [], circuitBreaker: CircuitBreakerSettings = .default,
        maxConcurrentRequests: Int = Bulkhead.defaultLimit, propagateTraceContext: Bool = false,
        maxWaitingRequests: Int = Bulkhead.defaultMaxWaiting
    ) {
        self.name = name
        self.kind = kind
        self.environment = environment
        self.baseURL = baseURL
        self.credentials = credentials
        self.options = options
        self.timeout = timeout
        self.retry = retry
        self.middlewares = middlewares
        self.circuitBreaker = circuitBreaker
        self.maxConcurrentRequests = maxConcurrentRequests
        self.maxWaitingRequests = maxWaitingRequests
        self.propagateTraceContext = propagateTraceContext
    }
}

/// One problem found while loading configuration: where (a JSON path) and what (a plain sentence).
public struct ConfigurationProblem: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

/// Every problem found in a configuration document. ``GatewayConfiguration/load(from:registry:secrets:)`` throws
/// it as a ``CardGatewayError`` (``gatewayError``), whose ``CardGatewayError/configurationProblems`` gives the list
/// back; loaders of other configuration files (an app's user directory) can throw it as it is.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var problems: [ConfigurationProblem]

    /// For loaders of other configuration files (an app's user directory, say) that report problems the same way.
    public init(problems: [ConfigurationProblem]) {
        self.problems = problems
    }

    public var description: String {
        "invalid configuration (\(problems.count) problem\(problems.count == 1 ? "" : "s")):\n"
            + problems.map { "  \($0)" }.joined(separator: "\n")
    }

    /// The same, as the gateway's error type: code `invalidConfiguration`, a message naming every path (the
    /// first ten), and one field error per problem (field = JSON path), scrubbed like every error text.
    public var gatewayError: CardGatewayError {
        let paths = problems.prefix(10).map(\.path).joined(separator: ", ") + (problems.count > 10 ? ", …" : "")
        var error = CardGatewayError(
            .invalidConfiguration,
            problems.count == 1
                ? "invalid configuration at \(paths)" : "invalid configuration: \(problems.count) problems, at \(paths)"
        )
        error.fieldErrors = problems.map { CardGatewayError.FieldError(field: $0.path, message: $0.message) }
        return error
    }
}

/// The gateway's configuration: named provider instances and ordered routes.
public struct GatewayConfiguration: Sendable {
    public var providers: [String: ProviderInstanceConfiguration]
    public var routes: [Route]
    /// Where shared state is kept (the `store` section); in memory unless configured.
    public var store: StoreConfiguration = .inMemory
    /// The local rules for real-time authorizations (`authorizationRules`), in order.
    public var authorizationRules: [AuthorizationRule] = []

    public init(providers: [String: ProviderInstanceConfiguration], routes: [Route]) {
        self.providers = providers
        self.routes = routes
    }

    /// Loads the JSON document from a file; relative `file:` secrets are read next to it.
    public static func load(
        contentsOf url: URL, registry: ProviderRegistry, secrets: SecretResolver = SecretResolver()
    ) throws -> GatewayConfiguration {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ConfigurationError(problems: [.init(path: "$", message: "the file \(url.path) cannot be read")])
                .gatewayError
        }
        var resolver = secrets
        if resolver.baseDirectory == nil { resolver.baseDirectory = url.deletingLastPathComponent() }
        return try load(from: data, registry: registry, secrets: resolver)
    }

    /// Loads the JSON document. Throws a ``CardGatewayError`` with code `invalidConfiguration` listing every
    /// problem, each with its JSON path (``CardGatewayError/configurationProblems``).
    public static func load(
        from data: Data, registry: ProviderRegistry, secrets: SecretResolver = SecretResolver()
    ) throws -> GatewayConfiguration {
        var loader = ConfigurationLoader(registry: registry, secrets: secrets)
        let configuration = loader.load(data)
        if !loader.problems.isEmpty || configuration == nil {
            throw ConfigurationError(problems: loader.problems).gatewayError
        }
        return configuration!
    }
}

extension CardGatewayError {
    /// For an `invalidConfiguration` error from loading or building a configuration: every problem with its
    /// JSON path. Empty for other errors.
    public var configurationProblems: [ConfigurationProblem] {
        guard code == .invalidConfiguration else { return [] }
        return fieldErrors.map { ConfigurationProblem(path: $0.field, message: $0.message) }
    }
}
