import Foundation
import HTTPTypes

/// A provider's answer, whatever its status: adapters map non-success statuses to ``CardGatewayError``.
public struct ProviderResponse: Sendable, CustomStringConvertible {
    public var status: Int
    public var headers: HTTPFields
    public var body: Data
    /// How many attempts it took.
    public var attempts: Int
    /// The idempotency key sent, when the request carried one.
    public var idempotencyKey: String?

    public init(status: Int, headers: HTTPFields, body: Data, attempts: Int = 1, idempotencyKey: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.attempts = attempts
        self.idempotencyKey = idempotencyKey
    }

    public var isSuccess: Bool { (200..<300).contains(status) }

    public func header(_ name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        return headers[fieldName]
    }

    /// The `Retry-After` header, parsed.
    public var retryAfter: Duration? { headers[Self.retryAfterName].flatMap { RetryPolicy.parseRetryAfter($0) } }

    private static let retryAfterName = HTTPField.Name("Retry-After")!

    public var description: String { "ProviderResponse(status: \(status), \(body.count) bytes, attempts: \(attempts))" }
}
