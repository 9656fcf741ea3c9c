import Foundation

/// Percent-encoding for paths, queries and form bodies (RFC 3986 unreserved characters are kept).
public enum URLEncoding: Sendable {
    private static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-._~")
        return set
    }()

    /// Whether a path segment (raw or percent-encoded) is "." or "..": one that a server or proxy normalising the
    /// path would turn into another resource's path. Adapters refuse such ids by name; the HTTP client refuses
    /// any request path holding one.
    public static func isDotSegment(_ segment: some StringProtocol) -> Bool {
        [".", "..", "%2e", "%2e%2e", ".%2e", "%2e."].contains(segment.lowercased())
    }

    /// Encodes everything but unreserved characters (so `/`, `?`, `&`, `=`, `+` and spaces are escaped).
    public static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// One path segment, escaped, for interpolating ids into paths.
    public static func pathSegment(_ text: String) -> String { escape(text) }

    /// `name=value&…`, both escaped, in the order given.
    public static func query(_ items: [(name: String, value: String)]) -> String {
        items.map { "\(escape($0.name))=\(escape($0.value))" }.joined(separator: "&")
    }

    /// An `application/x-www-form-urlencoded` body, in the order given.
    public static func formBody(_ items: [(name: String, value: String)]) -> Data {
        Data(query(items).utf8)
    }
}
