import Foundation

/// Idempotency keys: one per logical operation, reused across its retries.
@_spi(AdapterSupport) public enum IdempotencyKeys: Sendable {
    /// The key for one provider request of an operation. With an operation key, it is derived from it and
    /// `scope` (so the same operation repeated by the caller gets the same key, and two requests of one
    /// operation get different keys); without one, it is a fresh random UUID.
    public static func derive(operationKey: String?, scope: String, maxLength: Int = 64) -> String {
        guard let operationKey, !operationKey.isEmpty else {
            return String(UUID().uuidString.lowercased().prefix(maxLength))
        }
        let digest = MessageAuthentication.sha256(Data("\(operationKey)\u{0}\(scope)".utf8))
        return String(ByteEncoding.hex(digest).prefix(max(16, min(maxLength, 64))))
    }
}
