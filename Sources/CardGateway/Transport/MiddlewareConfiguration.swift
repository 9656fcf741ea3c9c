import Foundation

/// Where in an instance's chain a configured middleware runs (see ``ProviderMiddleware``).
public struct MiddlewarePlacement: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Once per logical request, after the adapter's authentication and before the retry step.
    public static let request = MiddlewarePlacement(rawValue: "request")
    /// Once per attempt, inside the retry step.
    public static let attempt = MiddlewarePlacement(rawValue: "attempt")

    public var description: String { rawValue }
}

/// One middleware named in an instance's configuration:
/// `"middlewares": [{"name": "headers", "options": {"X-Tenant": "eu-1"}}]`.
public struct MiddlewareReference: Sendable, Equatable {
    /// The name a ``MiddlewareFactory`` was registered under.
    public var name: String
    public var options: [String: JSONValue]

    public init(name: String, options: [String: JSONValue] = [:]) {
        self.name = name
        self.options = options
    }
}

/// How a middleware named in configuration is made. Register factories on the ``ProviderRegistry``
/// (``ProviderRegistry/register(middleware:)``); the registry knows ``MiddlewareFactory/headers`` from the start.
public struct MiddlewareFactory: Sendable {
    public var name: String
    public var placement: MiddlewarePlacement
    public var summary: String
    /// Builds the middleware from its `options` object. Throws ``CardGatewayError`` (`invalidRequest` with a
    /// field naming the option) for options it cannot use; configuration loading reports that at the option's
    /// JSON path.
    public var make: @Sendable (_ options: [String: JSONValue]) throws -> any ProviderMiddleware

    public init(
        name: String, placement: MiddlewarePlacement, summary: String = "",
        make: @escaping @Sendable (_ options: [String: JSONValue]) throws -> any ProviderMiddleware
    ) {
        self.name = name
        self.placement = placement
        self.summary = summary
        self.make = make
    }

    /// `headers`: fixed headers added to every request that does not set them; options are header name →
    /// string value. It never overrides a header the adapter or its authentication set.
    public static let headers = MiddlewareFactory(
        name: "headers", placement: .request, summary: "fixed headers added to every request that lacks them"
    ) { options in
        var fields: [(name: String, value: String)] = []
        for name in options.keys.sorted() {
            guard let value = options[name]?.stringValue else {
                throw CardGatewayError.invalidRequest(
                    "must be a string, not \(options[name]?.typeName ?? "nothing")", field: name)
            }
            fields.append((name, value))
        }
        if fields.isEmpty { throw CardGatewayError.invalidRequest("name at least one header to add", field: "") }
        return try StaticHeadersMiddleware(fields)
    }
}

/// The middlewares a program adds in code to one instance, on top of those its configuration names.
public struct InstanceMiddlewares: Sendable {
    /// Run once per logical request, after those from configuration.
    public var request: [any ProviderMiddleware]
    /// Run once per attempt, after those from configuration.
    public var attempt: [any ProviderMiddleware]

    public init(request: [any ProviderMiddleware] = [], attempt: [any ProviderMiddleware] = []) {
        self.request = request
        self.attempt = attempt
    }

    /// No middleware.
    public static let none = InstanceMiddlewares()
}
