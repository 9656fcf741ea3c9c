import Foundation

/// Small wire helpers for simulators.
public enum SimulatorHTTP: Sendable {
    /// Parses an `application/x-www-form-urlencoded` body.
    ///
    /// Pairs are separated by `&`; name and value by the first `=` (a pair without `=` has an empty value). `+` means a
    /// space and `%XX` sequences are percent-decoded (an invalid `%` sequence is kept as written; bytes that are not
    /// valid UTF-8 after decoding are repaired with U+FFFD). Order and duplicates are
    /// kept, so Stripe-style `items[0][price]=...` keys arrive exactly as sent. Empty pairs are skipped.
    /// - Parameter body: The raw body.
    /// - Returns: The fields in order.
    public static func formFields(_ body: Data) -> [(name: String, value: String)] {
        self.urlEncodedPairs(String(decoding: body, as: UTF8.self))
    }

    /// Parses a URL query string (with or without the leading `?`) with the same rules as ``formFields(_:)``.
    /// - Parameter query: The query, or `nil`.
    /// - Returns: The items in order (empty for `nil`).
    public static func queryItems(_ query: String?) -> [(name: String, value: String)] {
        guard var query else { return [] }
        if query.hasPrefix("?") {
            query.removeFirst()
        }
        return self.urlEncodedPairs(query)
    }

    /// Extracts the credentials of an HTTP Basic `Authorization` header value (`Basic base64(user:password)`; the scheme is
    /// matched case-insensitively and the password may contain `:`).
    /// - Parameter authorization: The header value, or `nil`.
    /// - Returns: User and password, or `nil` if the header is absent, not Basic, not valid base64/UTF-8 or has no `:`.
    public static func basicCredentials(_ authorization: String?) -> (user: String, password: String)? {
        guard let encoded = self.credentials(authorization, scheme: "basic"),
            let data = ByteEncoding.decodeBase64(encoded),
            let decoded = String(data: data, encoding: .utf8),
            let colon = decoded.firstIndex(of: ":")
        else { return nil }
        return (user: String(decoded[..<colon]), password: String(decoded[decoded.index(after: colon)...]))
    }

    /// The `Authorization` value HTTP Basic sends, `Basic base64(user:password)` (RFC 7617 section 2): what a simulator
    /// that plays a provider's network or webhook sender writes. It holds the password: never log it.
    /// - Parameters:
    ///   - user: The user id (it must not contain `:`).
    ///   - password: The password.
    public static func basicAuthorization(user: String, password: String) -> String {
        ByteEncoding.basicAuthorization(user: user, password: password)
    }

    /// Whether an `Authorization` header value carries exactly these HTTP Basic credentials: both compared with
    /// `ConstantTime.equals` (both always compared, so the time taken does not tell which one differed).
    /// - Parameters:
    ///   - authorization: The header value, or `nil`.
    ///   - user: The user the simulator accepts.
    ///   - password: The password the simulator accepts.
    /// - Returns: False when the header is absent, not Basic, malformed, or either credential differs.
    public static func basicCredentialsMatch(_ authorization: String?, user: String, password: String) -> Bool {
        guard let given = self.basicCredentials(authorization) else { return false }
        let userMatches = ConstantTime.equals(given.user.utf8, user.utf8)
        let passwordMatches = ConstantTime.equals(given.password.utf8, password.utf8)
        return userMatches && passwordMatches
    }

    /// Extracts the token of an HTTP `Authorization: Bearer <token>` header value (scheme matched case-insensitively).
    /// - Parameter authorization: The header value, or `nil`.
    /// - Returns: The token, or `nil` if the header is absent, not Bearer, or the token is empty.
    public static func bearerToken(_ authorization: String?) -> String? {
        self.credentials(authorization, scheme: "bearer")
    }

    /// Encodes fields as `application/x-www-form-urlencoded` (space as `+`, everything but unreserved characters
    /// percent-encoded); the inverse of ``formFields(_:)``.
    /// - Parameter fields: The fields in order.
    public static func formEncode(_ fields: [(name: String, value: String)]) -> String {
        fields.map { "\(self.formEscape($0.name))=\(self.formEscape($0.value))" }.joined(separator: "&")
    }

    private static func credentials(_ authorization: String?, scheme: String) -> String? {
        guard let authorization else { return nil }
        let trimmed = authorization.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " "),
            trimmed[..<space].lowercased() == scheme
        else { return nil }
        let value = trimmed[trimmed.index(after: space)...].trimmingCharacters(in: .whitespaces)
        return value.isEmpty ? nil : value
    }

    private static func urlEncodedPairs(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return (
                    name: self.formUnescape(pair[..<equals]),
                    value: self.formUnescape(pair[pair.index(after: equals)...])
                )
            }
            return (name: self.formUnescape(pair), value: "")
        }
    }

    private static func formUnescape(_ text: Substring) -> String {
        let input = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
                index += 1
            } else if byte == UInt8(ascii: "%"), index + 2 < input.count,
                let high = ByteEncoding.nibble(input[index + 1]), let low = ByteEncoding.nibble(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let formAllowed: CharacterSet = {
        var allowed = CharacterSet()
        allowed.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~ ")
        return allowed
    }()

    private static func formEscape(_ text: String) -> String {
        let escaped = text.addingPercentEncoding(withAllowedCharacters: self.formAllowed) ?? text
        return escaped.replacingOccurrences(of: " ", with: "+")
    }
}
