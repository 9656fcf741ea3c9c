import Foundation

/// Percent-encoding for paths, queries and form bodies (RFC 3986 unreserved characters are kept).
@_spi(AdapterSupport) public enum URLEncoding: Sendable {
    /// Whether a path segment (raw or percent-encoded) is "." or "..": one that a server or proxy normalising the
    /// path would turn into another resource's path. Adapters refuse such ids by name; the HTTP client refuses
    /// any request path holding one.
    public static func isDotSegment(_ segment: some StringProtocol) -> Bool {
        [".", "..", "%2e", "%2e%2e", ".%2e", "%2e."].contains(segment.lowercased())
    }

    /// Whether any `/`-separated segment of `path` is a dot segment (``isDotSegment(_:)``).
    public static func hasDotSegment(_ path: String) -> Bool {
        path.split(separator: "/", omittingEmptySubsequences: false).contains(where: isDotSegment)
    }

    /// Encodes everything but RFC 3986 unreserved characters (ALPHA, DIGIT, "-", ".", "_", "~"), so `/`, `?`, `&`,
    /// `=`, `+` and spaces are escaped; each other UTF-8 byte becomes `%` and two upper-case hex digits.
    public static func escape(_ text: String) -> String {
        // Never nil for a Swift string (valid Unicode).
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-._~")
        return set
    }()

    /// One path segment, escaped, for interpolating ids into paths.
    public static func pathSegment(_ text: String) -> String { escape(text) }

    /// `name=value&…`, both escaped, in the order given.
    public static func query(_ items: [(name: String, value: String)]) -> String {
        items.map { escape($0.name) + "=" + escape($0.value) }.joined(separator: "&")
    }

    /// An `application/x-www-form-urlencoded` body, in the order given.
    public static func formBody(_ items: [(name: String, value: String)]) -> Data {
        Data(query(items).utf8)
    }
}
