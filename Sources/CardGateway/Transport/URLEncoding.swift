import Foundation

/// Percent-encoding for paths, queries and form bodies (RFC 3986 unreserved characters are kept).
@_spi(AdapterSupport) public enum URLEncoding: Sendable {
    /// Whether a path segment (raw or percent-encoded) is "." or "..": one that a server or proxy normalising the
    /// path would turn into another resource's path. Adapters refuse such ids by name; the HTTP client refuses
    /// any request path holding one.
    public static func isDotSegment(_ segment: some StringProtocol) -> Bool {
        // None is longer than six bytes, so a longer segment (an id) is not lowercased into a new string.
        segment.utf8.count <= 6 && [".", "..", "%2e", "%2e%2e", ".%2e", "%2e."].contains(segment.lowercased())
    }

    /// Whether any `/`-separated segment of `path` is a dot segment (``isDotSegment(_:)``).
    public static func hasDotSegment(_ path: String) -> Bool {
        // Segment by segment, without an array of them: every request's path is checked, and `split` and the
        // lowercased ids made 6 of a Stripe card read's allocations (issue 49: `gateway/stripe/card`, 56 -> 49 a call,
        // 26.6 -> 25.6 µs, medians of five runs side by side).
        var rest = path[...]
        while true {
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            if isDotSegment(rest[..<end]) { return true }
            guard end < rest.endIndex else { return false }
            rest = rest[rest.index(after: end)...]
        }
    }

    /// Encodes everything but RFC 3986 unreserved characters (ALPHA, DIGIT, "-", ".", "_", "~"), so `/`, `?`, `&`,
    /// `=`, `+` and spaces are escaped; each other UTF-8 byte becomes `%` and two upper-case hex digits.
    public static func escape(_ text: String) -> String {
        // An id or a query value is nearly always unreserved already, and is then returned as it is: Foundation's
        // escaping goes through a CFString on Linux, 7 % of a Paysafe card read (`gateway/paysafe/card`) for text it
        // leaves unchanged (46 µs a call before, 40 after; `PROBE_TIME=1 CallgrindProbe gateway/paysafe/card 20000`).
        if text.utf8.allSatisfy(isUnreserved) { return text }
        // Never nil for a Swift string (valid Unicode).
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// RFC 3986's unreserved characters as bytes: the same set as `unreserved`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
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
