import Foundation

extension MarqetaSimulator {
    /// Marqeta's transition `reason_code`s.
    static let reasonCodes: Set<String> = Set((0...32).map { String(format: "%02d", $0) } + ["86"])

    /// Standard Base64 with padding, nothing else.
    static func strictBase64(_ text: String) -> Data? {
        guard !text.isEmpty, text.count % 4 == 0,
            text.utf8.allSatisfy({
                ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 43 || $0 == 47
                    || $0 == 61
            })
        else { return nil }
        return Data(base64Encoded: text)
    }

    /// The end of the expiry month of `MMYY`, as `expiration_time`.
    static func expirationTime(_ expiration: String) -> String {
        guard expiration.count == 4, let month = Int(expiration.prefix(2)), let year = Int(expiration.suffix(2)) else {
            return ""
        }
        return String(format: "20%02d-%02d-28T23:59:59Z", year, month)
    }
}
