import Foundation
import Logging

/// Per-call settings: where to log, how long the caller will wait, the idempotency key of this logical
/// operation, and a solved SCA challenge when the call repeats one.
public struct OperationContext: Sendable {
    public var logger: Logger
    /// The caller's deadline for the whole operation, retries included.
    public var deadline: ContinuousClock.Instant?
    /// The key for this logical operation. Adapters derive each provider request's key from it, so that a
    /// repeat of the whole operation with the same key is replayed by the provider, not done twice. When nil,
    /// a fresh key is made per operation (and reused across that operation's retries).
    public var idempotencyKey: String?
    /// The caller's request id, passed through in logs.
    public var requestID: String?
    public var sca: SCAAuthorization?

    public init(
        logger: Logger = OperationContext.noopLogger, deadline: ContinuousClock.Instant? = nil,
        idempotencyKey: String? = nil, requestID: String? = nil, sca: SCAAuthorization? = nil
    ) {
        self.logger = logger
        self.deadline = deadline
        self.idempotencyKey = idempotencyKey
        self.requestID = requestID
        self.sca = sca
    }

    /// A logger that drops everything: the library never bootstraps logging itself.
    public static let noopLogger = Logger(label: "cardgateway.noop", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A context whose deadline is `timeout` from now.
    public static func timeout(_ timeout: Duration, logger: Logger = OperationContext.noopLogger) -> OperationContext {
        OperationContext(logger: logger, deadline: .now + timeout)
    }
}

extension OperationContext {
    /// The longest idempotency key or request id accepted, in UTF-8 bytes.
    public static let maxKeyLength = 255

    /// Problems with the caller's idempotency key and request id: each, when given, is 1 to ``maxKeyLength``
    /// printable ASCII characters (no space, line break or NUL), so neither can split a header, a log line or a
    /// ledger key. The message never quotes the value.
    @_spi(AdapterSupport) public func problems() -> ValidationProblems {
        var problems = ValidationProblems()
        // The common call carries neither: nothing to check (and no array of both to build).
        if idempotencyKey == nil && requestID == nil { return problems }
        for (field, value) in [("idempotencyKey", idempotencyKey), ("requestID", requestID)] {
            guard let value else { continue }
            if value.isEmpty || value.utf8.count > Self.maxKeyLength
                || !value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f })
            {
                problems.add(field, "must be 1 to \(Self.maxKeyLength) printable ASCII characters without spaces")
            }
        }
        return problems
    }
}
