import Foundation
import HTTPTypes

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
        /// adapter derives the key with `IdempotencyKeys.derive(operationKey:scope:maxLength:)` once per call.
        case idempotentByContent
        /// A write that must never be repeated once it may have reached the provider (a charge). It is still
        /// repeated when the connection provably never opened.
        case never
    }

    public var method: HTTPRequest.Method
    /// Path below the base URL, starting with `/`, ids already escaped (`URLEncoding.pathSegment(_:)`).
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

    /// Reads (GET, HEAD, OPTIONS) are safe to repeat; every other method is not.
    private static func defaultRepeatability(_ method: HTTPRequest.Method) -> Repeatability {
        switch method {
        case .get, .head, .options: return .safe
        default: return .never
        }
    }
}
