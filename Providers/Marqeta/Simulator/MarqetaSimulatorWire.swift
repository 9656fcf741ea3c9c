import Foundation

extension MarqetaSimulator {
    /// Marqeta's transition `reason_code`s.
    static let reasonCodes: Set<String> = Set((0...32).map { String(format: "%02d", $0) } + ["86"])

    /// The end of the expiry month of `MMYY`, as `expiration_time`.
    static func expirationTime(_ expiration: String) -> String {
        guard expiration.count == 4, let month = Int(expiration.prefix(2)), let year = Int(expiration.suffix(2)) else {
            return ""
        }
        return String(format: "20%02d-%02d-28T23:59:59Z", year, month)
    }
}
