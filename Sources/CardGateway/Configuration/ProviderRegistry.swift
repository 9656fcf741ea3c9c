import Foundation
import Logging

/// A credential an adapter reads from the instance's `credentials` object.
public struct CredentialSpec: Sendable, Equatable {
    public var name: String
    public var required: Bool
    public var summary: String

    public init(_ name: String, required: Bool = true, summary: String = "") {
        self.name = name
        self.required = required
        self.summary = summary
    }
}

/// An option an adapter reads from the instance's `options` object.
public struct OptionSpec: Sendable, Equatable {
    public enum ValueType: String, Sendable { case string, bool, integer }

    public var name: String
    public var type: ValueType
    public var required: Bool
    /// For strings: the only values allowed (empty = any).
    public var allowedValues: [String]
    public var summary: String

    public init(_ name: String, type: ValueType, required: Bool = false, allowedValues: [String] = [], summary: String = "") {
        self.name = name
        self.type = type
        self.required = required
        self.allowedValues = allowedValues
        self.summary = summary
    }
}

/// What an adapter module registers: its kind, what it can do, its documented environments, the
/// credentials and options it reads, and how to make an instance.
public struct ProviderFactory: Sendable {
    public var kind: ProviderKind
    public var descriptor: ProviderDescriptor
    /// Documented base URLs by environment name ("sandbox", "live"…), version path included.
    public var environments: [String: URL]
    public var credentials: [CredentialSpec]
    public var options: [OptionSpec]
    public var defaultTimeout: Duration
    public var make: @Sendable (ProviderSetup) throws -> any CardProvider

    public init(
        kind: ProviderKind, descriptor: ProviderDescriptor, environments: [String: URL], credentials: [CredentialSpec],
        options: [OptionSpec] = [], defaultTimeout: Duration = .seconds(30),
        make: @escaping @Sendable (ProviderSetup) throws -> any CardProvider
    ) {
        self.kind = kind
        self.descriptor = descriptor
        self.environments = environments
        self.credentials = credentials
        self.options = options
        self.defaultTimeout = defaultTimeout
        self.make = make
    }
}

/// Everything an adapter gets to build one instance.
public struct ProviderSetup: Sendable {
    public var configuration: ProviderInstanceConfiguration
    /// Ready to send to the instance's base URL with its timeout and retry policy.
    public var http: ProviderHTTPClient
    public var logger: Logger
    public var credentialStore: any CredentialReferenceStore
    /// The clock adapters use for expiry checks (injectable for tests).
    public var now: @Sendable () -> Date

    public init(
        configuration: ProviderInstanceConfiguration, http: ProviderHTTPClient, logger: Logger,
        credentialStore: any CredentialReferenceStore, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.http = http
        self.logger = logger
        self.credentialStore = credentialStore
        self.now = now
    }

    public var instance: String { configuration.name }

    /// A credential the factory declared. Throws `invalidConfiguration` when it is absent.
    public func credential(_ name: String) throws -> Secret {
        guard let secret = configuration.credentials[name] else {
            throw CardGatewayError(.invalidConfiguration, "providers.\(instance).credentials.\(name) is required", provider: instance)
        }
        return secret
    }

    public func optionalCredential(_ name: String) -> Secret? { configuration.credentials[name] }

    public func stringOption(_ name: String) -> String? { configuration.options[name]?.stringValue }
    public func boolOption(_ name: String) -> Bool? { configuration.options[name]?.boolValue }
    public func intOption(_ name: String) -> Int? { configuration.options[name]?.intValue }
}

/// The provider kinds the gateway knows. Adapter modules add theirs (`registry.register(.stripe)`); the core
/// knows none by itself.
public struct ProviderRegistry: Sendable {
    public private(set) var factories: [ProviderKind: ProviderFactory] = [:]

    public init(_ factories: [ProviderFactory] = []) {
        for factory in factories { register(factory) }
    }

    public mutating func register(_ factory: ProviderFactory) {
        factories[factory.kind] = factory
    }

    public func factory(for kind: ProviderKind) -> ProviderFactory? { factories[kind] }

    public var kinds: [ProviderKind] { factories.keys.sorted { $0.name < $1.name } }
}
