import Foundation
import HTTPTypes
import Logging

/// What a middleware knows about the call it wraps: which instance sends it, the caller's context, and, for
/// middlewares that run once per attempt, which attempt this is and how long it may take.
public struct ProviderCallContext: Sendable {
    /// The provider instance's name from configuration.
    public let instance: String
    public let kind: ProviderKind
    public let baseURL: URL
    /// The caller's settings for the whole operation (deadline, idempotency key, request id, solved SCA).
    public var operation: OperationContext
    /// A logger that already carries the call's metadata (`cardgateway.provider`, `cardgateway.operation`…).
    public var logger: Logger
    /// 0 outside the retry step; 1, 2, … for the middlewares that run once per attempt.
    public var attempt: Int
    /// The time this attempt may take (the instance's timeout, cut to the caller's deadline). Set by the retry
    /// step for the attempt middlewares and the transport.
    public var attemptTimeout: Duration

    public init(
        instance: String, kind: ProviderKind, baseURL: URL, operation: OperationContext, logger: Logger,
        attempt: Int = 0, attemptTimeout: Duration = .seconds(30)
    ) {
        self.instance = instance
        self.kind = kind
        self.baseURL = baseURL
        self.operation = operation
        self.logger = logger
        self.attempt = attempt
        self.attemptTimeout = attemptTimeout
    }
}

/// The rest of the chain, as a middleware sees it.
public typealias ProviderNext = @Sendable (ProviderRequest, ProviderCallContext) async throws -> ProviderResponse

/// One step around the requests a provider instance sends, in the style of swift-openapi-runtime's
/// `ClientMiddleware`: it may change the request, call `next` (once, several times, or not at all), and change
/// or replace the response.
///
/// `ProviderHTTPClient` composes, per instance, in one place (`ProviderChain`):
///
/// 1. the idempotency step (one key per logical request, the same on every attempt);
/// 2. the adapter's authentication (`ProviderHTTPClient/authentication`);
/// 3. `ProviderHTTPClient/requestMiddlewares`: once per logical request;
/// 4. the retry step (the caller's deadline, backoff, `Retry-After`, only what is safe to repeat; turns a
///    ``TransportError`` into a ``CardGatewayError``);
/// 5. in a ``CardGateway``, the instance's circuit breaker, bulkhead, and attempt span and metrics;
/// 6. `ProviderHTTPClient/attemptMiddlewares`: once per attempt (a client built without a gateway puts its own
///    breaker, bulkhead or telemetry here);
/// 7. the attempt log lines, then the transport.
///
/// A middleware below the retry step that fails without a response throws ``TransportError`` (which the retry
/// step may repeat) or ``CardGatewayError`` (which it passes on as it is). A middleware must never log or
/// record a request's body or header values: they carry card data and credentials.
public protocol ProviderMiddleware: Sendable {
    func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse
}

/// A middleware made from a closure, for small additions in code.
public struct ClosureMiddleware: ProviderMiddleware {
    private let body: @Sendable (ProviderRequest, ProviderCallContext, ProviderNext) async throws -> ProviderResponse

    public init(
        _ body:
            @escaping @Sendable (ProviderRequest, ProviderCallContext, ProviderNext) async throws -> ProviderResponse
    ) {
        self.body = body
    }

    public func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        try await body(request, context, next)
    }
}

/// Adds fixed headers to every request that does not set them already (a tenant header for a proxy, say).
/// Configured per instance as `{"name": "headers", "options": {"X-Tenant": "eu-1"}}`.
public struct StaticHeadersMiddleware: ProviderMiddleware {
    @_spi(AdapterSupport) public let fields: HTTPFieldsSnapshot

    public init(_ fields: [(name: String, value: String)]) throws {
        var snapshot: [(HTTPField.Name, String)] = []
        for (name, value) in fields {
            guard let fieldName = HTTPField.Name(name) else {
                throw CardGatewayError.invalidRequest(
                    "\"\(SafeText.scrub(name, maxLength: 60))\" is not a valid header name", field: name)
            }
            guard HeaderValues.isSafe(value) else {
                throw CardGatewayError.invalidRequest("the value of \(name) has a control character", field: name)
            }
            snapshot.append((fieldName, value))
        }
        self.fields = HTTPFieldsSnapshot(snapshot)
    }

    public func intercept(
        _ request: ProviderRequest, context: ProviderCallContext, next: ProviderNext
    ) async throws -> ProviderResponse {
        var request = request
        for (name, value) in fields.fields { request.headers.appendIfAbsent(name, value) }
        return try await next(request, context)
    }
}

/// A fixed list of header fields, `Sendable` and `Equatable`.
@_spi(AdapterSupport) public struct HTTPFieldsSnapshot: Sendable, Equatable {
    public let fields: [(HTTPField.Name, String)]
    public init(_ fields: [(HTTPField.Name, String)]) { self.fields = fields }
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.fields.count == rhs.fields.count && zip(lhs.fields, rhs.fields).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }
}

/// Header values that may be sent: no CR, LF, NUL or other control character but tab.
@_spi(AdapterSupport) public enum HeaderValues: Sendable {
    public static func isSafe(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7f) }
    }
}

extension Array where Element == any ProviderMiddleware {
    /// Runs the middlewares in order around `terminal`.
    func chained(to terminal: @escaping ProviderNext) -> ProviderNext {
        var next = terminal
        for middleware in reversed() {
            let inner = next
            next = { request, context in try await middleware.intercept(request, context: context, next: inner) }
        }
        return next
    }
}

extension HTTPFields {
    /// Adds `name: value` unless a field of that name is there already. Tested with `contains`: the subscript would
    /// join every value of the name into a new string just to compare it with nil.
    mutating func appendIfAbsent(_ name: HTTPField.Name, _ value: String) {
        if !contains(name) { append(HTTPField(name: name, value: value)) }
    }
}
