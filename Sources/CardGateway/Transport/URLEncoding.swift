import Foundation

/// Percent-encoding for paths, queries and form bodies (RFC 3986 unreserved characters are kept).
public enum URLEncoding: Sendable {
    /// Whether a path segment (raw or percent-encoded) is "." or "..": one that a server or proxy normalising the
    /// path would turn into another resource's path. Adapters refuse such ids by name; the HTTP client refuses
    /// any request path holding one.
    public static func isDotSegment(_ segment: some StringProtocol) -> Bool {
        // Every dot segment is 1 to 6 bytes and starts with "." or "%": anything else is answered without
        // lowercasing (which allocates).
        let utf8 = segment.utf8
        guard let first = utf8.first, first == UInt8(ascii: ".") || first == UInt8(ascii: "%"), utf8.count <= 6 else {
            return false
        }
        return [".", "..", "%2e", "%2e%2e", ".%2e", "%2e."].contains(segment.lowercased())
    }

    /// Whether any `/`-separated segment of `path` is a dot segment (``isDotSegment(_:)``), without splitting
    /// the path into an array.
    public static func hasDotSegment(_ path: String) -> Bool {
        let utf8 = path.utf8
        var start = utf8.startIndex
        while true {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
            if isDotSegment(path[start..<end]) { return true }
            guard end < utf8.endIndex else { return false }
            start = utf8.index(after: end)
        }
    }

    /// Encodes everything but unreserved characters (so `/`, `?`, `&`, `=`, `+` and spaces are escaped).
    public static func escape(_ text: String) -> String {
        // Most ids and values need no escaping: those are returned as they are, without Foundation's copy.
        if text.utf8.allSatisfy(isUnreserved) { return text }
        // Each other UTF-8 byte becomes `%` and two upper-case hex digits, as `addingPercentEncoding` writes it (tested
        // against it), into one string of at most three bytes per byte, without Foundation's bridging.
        let hex: StaticString = "0123456789ABCDEF"
        return String(unsafeUninitializedCapacity: text.utf8.count * 3) { output in
            // Sound: at most three bytes are written per byte of `text`, into a buffer of three times its length.
            var written = 0
            for byte in text.utf8 {
                if isUnreserved(byte) {
                    output[written] = byte
                    written += 1
                } else {
                    output[written] = UInt8(ascii: "%")
                    output[written + 1] = hex.utf8Start[Int(byte >> 4)]
                    output[written + 2] = hex.utf8Start[Int(byte & 0x0F)]
                    written += 3
                }
            }
            return written
        }
    }

    /// RFC 3986 unreserved: ALPHA, DIGIT, "-", ".", "_", "~".
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): return true
        default: return false
        }
    }

    /// One path segment, escaped, for interpolating ids into paths.
    public static func pathSegment(_ text: String) -> String { escape(text) }

    /// `name=value&…`, both escaped, in the order given.
    public static func query(_ items: [(name: String, value: String)]) -> String {
        // Written into one string (escaping only what needs it) rather than joined from a string per item.
        var capacity = 0
        for item in items { capacity += item.name.utf8.count + item.value.utf8.count + 2 }
        var text = ""
        text.reserveCapacity(capacity)
        for (position, item) in items.enumerated() {
            if position > 0 { text += "&" }
            text += escape(item.name)
            text += "="
            text += escape(item.value)
        }
        return text
    }

    /// An `application/x-www-form-urlencoded` body, in the order given.
    public static func formBody(_ items: [(name: String, value: String)]) -> Data {
        Data(query(items).utf8)
    }
}
