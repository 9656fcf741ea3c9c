import Crypto
import Foundation

/// The keyed hashes webhook and JWT checks are built on. Comparisons are constant-time.
public enum MessageAuthentication: Sendable {
    public static func hmacSHA256(key: Data, message: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    public static func hmacSHA256(key: Secret, message: Data) -> Data {
        hmacSHA256(key: Data(key.revealedValue.utf8), message: message)
    }

    /// True when `signature` is the HMAC-SHA256 of `message` under `key`, compared in constant time.
    public static func verifyHMACSHA256(signature: Data, key: Data, message: Data) -> Bool {
        ConstantTime.equals(Array(hmacSHA256(key: key, message: message)), Array(signature))
    }

    public static func sha256(_ data: Data) -> Data { Data(SHA256.hash(data: data)) }
}
