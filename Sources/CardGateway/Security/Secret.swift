import Foundation
import Logging

/// A secret or sensitive string: an API key, a password, a CVV, a PIN, a JWT, an ephemeral secret.
///
/// Its `description`, `debugDescription`, reflection and log metadata never show the value; the only way
/// out is ``revealedValue``, which makes every place that uses the value easy to find.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let storage: String

    public init(_ value: String) { self.storage = value }

    /// The value itself. Use it only to put it on the wire or to compare it.
    public var revealedValue: String { storage }

    public var isEmpty: Bool { storage.isEmpty }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "Secret(<redacted>)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// Constant-time comparison, so that comparing a secret with a guess reveals nothing through timing.
    public static func == (lhs: Secret, rhs: Secret) -> Bool {
        ConstantTime.equals(Array(lhs.storage.utf8), Array(rhs.storage.utf8))
    }
}

/// Sensitive bytes: certificates, nonces, nonce signatures, encrypted payloads, SDK blobs.
public struct SensitiveData: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let storage: Data

    public init(_ bytes: Data) { self.storage = bytes }
    public init(_ bytes: [UInt8]) { self.storage = Data(bytes) }

    /// The bytes themselves. Use them only to put them on the wire.
    public var revealedBytes: Data { storage }
    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }

    public var description: String { "<redacted \(storage.count) bytes>" }
    public var debugDescription: String { "SensitiveData(<redacted \(storage.count) bytes>)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    public static func == (lhs: SensitiveData, rhs: SensitiveData) -> Bool {
        ConstantTime.equals(Array(lhs.storage), Array(rhs.storage))
    }
}

extension Logger.MetadataValue {
    /// The value to log in place of anything sensitive.
    public static var redacted: Logger.MetadataValue { .string("<redacted>") }
}
