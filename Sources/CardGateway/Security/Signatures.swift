import Crypto
import Foundation

/// The keyed hashes webhook and JWT checks are built on. Checks go through swift-crypto's
/// `isValidAuthenticationCode` (constant time), never through recomputing and comparing.
public enum MessageAuthentication: Sendable {
    public static func hmacSHA256(key: Data, message: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    public static func hmacSHA256(key: Secret, message: Data) -> Data {
        hmacSHA256(key: Data(key.revealedValue.utf8), message: message)
    }

    /// True when `signature` is the HMAC-SHA256 of `message` under `key` (swift-crypto's constant-time check).
    public static func verifyHMACSHA256(signature: Data, key: Data, message: Data) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: message, using: SymmetricKey(data: key))
    }

    /// True when `signature` is the HMAC-SHA256 of `message` under the UTF-8 bytes of `key`.
    public static func verifyHMACSHA256(signature: Data, key: Secret, message: Data) -> Bool {
        verifyHMACSHA256(signature: signature, key: Data(key.revealedValue.utf8), message: message)
    }

    public static func sha256(_ data: Data) -> Data { Data(SHA256.hash(data: data)) }
}
