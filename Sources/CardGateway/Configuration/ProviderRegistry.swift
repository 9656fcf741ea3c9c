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

    public init(
        _ name: String, type: ValueType, required: Bool = false, allowedValues: [String] = [], summary: String = ""
    ) {
        self.name = name
        self.type = type
        self.required = required
        self.allowedValues = allowedValues
        self.summary = summary
    }

    /// The option named by one of an options struct's coding keys, so the name is written once.
    public init(
        _ key: some CodingKey, type: ValueType, required: Bool = false, allowedValues: [String] = [],
        summary: String = ""
    ) {
        self.init(key.stringValue, type: type, required: required, allowedValues: allowedValues, summary: summary)
    }
}

/// An adapter's options as one typed value: a `Decodable` struct whose coding keys are the option names. The
/// configuration loader checks each option against ``specs`` (type, allowed values, unknown keys) and then
/// decodes the struct, so a problem in either is reported at load with its JSON path; the adapter receives
/// the decoded struct and reads no option by name.
///
/// Checks beyond the specs (a number's range, say) belong in `init(from:)`: throw
/// `DecodingError.dataCorruptedError(forKey:in:debugDescription:)` and the description becomes the problem's
/// message at that option's path.
public protocol ProviderOptions: Decodable, Sendable {
    /// Each option, for validation and documentation; build them from the coding keys
    /// (``OptionSpec/init(_:type:required:allowedValues:summary:)-(CodingKey,_,_,_,_)``).
    static var specs: [OptionSpec] { get }
}

/// For adapters that take no options.
public struct NoProviderOptions: ProviderOptions, Equatable {
    public static let specs: [OptionSpec] = []
    public init() {}
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
    /// Decodes the instance's options into the adapter's ``ProviderOptions`` type, for the loader's check;
    /// nil for factories that declare options as specs only.
    public var checkOptions: (@Sendable ([String: JSONValue]) throws -> Void)?

    /// A factory whose options are a typed struct: `make` receives it decoded.
    public init<Options: ProviderOptions>(
        kind: ProviderKind, descriptor: ProviderDescriptor, environments: [String: URL], credentials: [CredentialSpec],
        options: Options.Type, defaultTimeout: Duration = .seconds(30),
        make: @escaping @Sendable (ProviderSetup, Options) throws -> any CardProvider
    ) {
        self.init(
            kind: kind, descriptor: descriptor, environments: environments, credentials: credentials,
            options: Options.specs,
            defaultTimeout: defaultTimeout
        ) { setup in
            try make(setup, try setup.options(Options.self))
        }
        self.checkOptions = { options in _ = try ProviderSetup.decode(Options.self, from: options, instance: nil) }
    }

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
        self.checkOptions = nil
    }
}

/// Everything an adapter gets to build one instance.
public struct ProviderSetup: Sendable {
    public var configuration: ProviderInstanceConfiguration
    /// Ready to send to the instance's base URL with its timeout and retry policy.
    @_spi(AdapterSupport) public var http: ProviderHTTPClient
    public var logger: Logger
    public var credentialStore: any CredentialReferenceStore
    /// The clock adapters use for expiry checks (injectable for tests).
    public var now: @Sendable () -> Date

    @_spi(AdapterSupport) public init(
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
            throw CardGatewayError(
                .invalidConfiguration, "providers.\(instance).credentials.\(name) is required", provider: instance)
        }
        return secret
    }

    public func optionalCredential(_ name: String) -> Secret? { configuration.credentials[name] }

    /// The instance's options decoded as the adapter's type. Throws `invalidConfiguration` with the option's
    /// path when they do not decode.
    public func options<Options: ProviderOptions>(_ type: Options.Type) throws -> Options {
        try Self.decode(type, from: configuration.options, instance: instance)
    }

    static func decode<Options: ProviderOptions>(
        _ type: Options.Type, from options: [String: JSONValue], instance: String?
    ) throws -> Options {
        do {
            let data = try JSONEncoder().encode(JSONValue.object(options))
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            let (key, message) = Self.describe(error)
            let field = key.map { "options.\($0)" } ?? "options"
            throw CardGatewayError(
                .invalidConfiguration,
                instance.map { "providers.\($0).\(field): \(message)" } ?? "\(field): \(message)",
                provider: instance, fieldErrors: [.init(field: field, message: message)]
            )
        }
    }

    /// The option a decoding error is about, and what is wrong, in the loader's words.
    private static func describe(_ error: DecodingError) -> (key: String?, message: String) {
        switch error {
        case .keyNotFound(let key, _): return (key.stringValue, "is required")
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return (context.codingPath.first?.stringValue, "has the wrong type")
        case .dataCorrupted(let context):
            return (
                context.codingPath.first?.stringValue,
                context.debugDescription.isEmpty ? "is not valid" : context.debugDescription
            )
        @unknown default: return (nil, "could not be read")
        }
    }

    public func stringOption(_ name: String) -> String? { configuration.options[name]?.stringValue }
    public func boolOption(_ name: String) -> Bool? { configuration.options[name]?.boolValue }
    public func intOption(_ name: String) -> Int? { configuration.options[name]?.intValue }
}

/// The provider kinds the gateway knows, and the middlewares configuration may name. Adapter modules add their
/// kinds (`registry.register(.stripe)`); the core knows no kind by itself, and one middleware
/// (``MiddlewareFactory/headers``).
public struct ProviderRegistry: Sendable {
    public private(set) var factories: [ProviderKind: ProviderFactory] = [:]
    public private(set) var middlewareFactories: [String: MiddlewareFactory] = [:]

    public init(_ factories: [ProviderFactory] = []) {
        for factory in factories { register(factory) }
        register(middleware: .headers)
    }

    /// Lets configuration name a middleware (`"middlewares": [{"name": …}]` in a provider instance). A later
    /// registration under the same name replaces the earlier one.
    public mutating func register(middleware factory: MiddlewareFactory) {
        middlewareFactories[factory.name] = factory
    }

    public func middlewareFactory(named name: String) -> MiddlewareFactory? { middlewareFactories[name] }

    public mutating func register(_ factory: ProviderFactory) {
        factories[factory.kind] = factory
    }

    public func factory(for kind: ProviderKind) -> ProviderFactory? { factories[kind] }

    public var kinds: [ProviderKind] { factories.keys.sorted { $0.name < $1.name } }
}
