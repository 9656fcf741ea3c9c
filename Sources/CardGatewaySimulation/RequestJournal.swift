import Foundation
import HTTPTypes
import Synchronization

/// One request that went over the wire to a simulator, with the status it was answered with.
///
/// JSON form (as served by `GET /__simulator/journal`):
/// ```json
/// {"method":"POST","path":"/v1/payment_intents","query":"expand=x","headers":{"authorization":"<masked>",
///  "content-type":"application/x-www-form-urlencoded"},"body":"YW1vdW50PTEwMDA=","bodyText":"amount=1000",
///  "responseStatus":200,"timestamp":"2025-01-01T12:00:00.000Z","handling":"executed"}
/// ```
/// `body` is base64; `bodyText` is its UTF-8 view (ignored when decoding); `query` is omitted when the request had none;
/// `timestamp` is ISO 8601 with fractional seconds. `responseStatus` is `0` when the connection was dropped without
/// a response. `handling` says whether the simulator did the work (see ``Handling``); it defaults to `executed` when
/// decoding an entry without it.
public struct JournalEntry: Sendable, Codable, Equatable {
    /// What the simulator did with a request: whether its route ran, so a test can prove a write was executed at most
    /// once whatever faults and retries surrounded it.
    public enum Handling: String, Sendable, Codable, Equatable {
        /// The route ran (after an injected delay, too): a write's effect happened, unless it answered an error.
        case executed
        /// The route answered with the response saved for the request's idempotency key (``IdempotencyLedger``):
        /// nothing was done again.
        case replayed
        /// An injected fault answered (a status, a dropped connection, a malformed, truncated, mistyped or oversized
        /// body); the route never ran.
        case faulted
        /// The kit refused the request before the route (a body over the size limit); the route never ran.
        case rejected
    }

    /// Marks the kit sets while a route runs, so the ``IdempotencyLedger`` can say a response was a replay.
    final class Marks: Sendable {
        @TaskLocal static var current: Marks?
        private let replayed = Mutex(false)
        func markReplayed() { replayed.withLock { $0 = true } }
        var handling: Handling { replayed.withLock { $0 } ? .replayed : .executed }
    }

    /// The value that replaces sensitive header values.
    public static let maskedValue = "<masked>"

    /// Request method, e.g. `"POST"`.
    public var method: String
    /// Request path without the query, e.g. `"/v1/payment_intents"`.
    public var path: String
    /// Raw query string without `?`, or `nil` when the request had none.
    public var query: String?
    /// Request headers keyed by lower-cased name (repeated headers joined with `", "`); sensitive values are replaced
    /// by ``maskedValue``.
    public var headers: [String: String]
    /// Request body bytes, with the values of card-data fields (card numbers, security codes, PINs: see
    /// ``RequestJournal/defaultSensitiveBodyFields``) replaced by ``maskedValue`` when the kit recorded it.
    public var body: Data
    /// Status of the response sent (`0`: the connection was dropped without a response).
    public var responseStatus: Int
    /// When the request arrived (the simulator's ``SimulationClock`` if it has one, otherwise system time).
    public var timestamp: Date
    /// Whether the route ran, replayed a saved answer, or never ran.
    public var handling: Handling

    /// Whether this request made the simulator do its work and succeed: the route ran (not a replay, not a fault)
    /// and answered 2xx.
    public var executedSuccessfully: Bool { handling == .executed && (200..<300).contains(responseStatus) }

    /// Creates an entry.
    public init(
        method: String,
        path: String,
        query: String?,
        headers: [String: String],
        body: Data,
        responseStatus: Int,
        timestamp: Date,
        handling: Handling = .executed
    ) {
        self.handling = handling
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.responseStatus = responseStatus
        self.timestamp = timestamp
    }

    /// The body as UTF-8 text (invalid sequences are repaired with U+FFFD).
    public var bodyText: String {
        String(decoding: self.body, as: UTF8.self)
    }

    /// The value of the named request header (case-insensitive), or `nil`.
    /// - Parameter name: Header name.
    public func header(_ name: String) -> String? {
        self.headers[name.lowercased()]
    }

    private enum CodingKeys: String, CodingKey {
        case method, path, query, headers, body, bodyText, responseStatus, timestamp, handling
    }

    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Decodes the JSON form described on the type. `bodyText` is used only when `body` is absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.method = try container.decode(String.self, forKey: .method)
        self.path = try container.decode(String.self, forKey: .path)
        self.query = try container.decodeIfPresent(String.self, forKey: .query)
        self.headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        if let base64 = try container.decodeIfPresent(String.self, forKey: .body) {
            guard let data = Data(base64Encoded: base64) else {
                throw DecodingError.dataCorruptedError(forKey: .body, in: container, debugDescription: "body is not valid base64")
            }
            self.body = data
        } else {
            self.body = Data((try container.decodeIfPresent(String.self, forKey: .bodyText) ?? "").utf8)
        }
        self.responseStatus = try container.decode(Int.self, forKey: .responseStatus)
        let timestamp = try container.decode(String.self, forKey: .timestamp)
        let parsed = (try? Self.timestampStyle.parse(timestamp)) ?? (try? Date.ISO8601FormatStyle().parse(timestamp))
        guard let date = parsed else {
            throw DecodingError.dataCorruptedError(forKey: .timestamp, in: container, debugDescription: "timestamp is not ISO 8601")
        }
        self.timestamp = date
        self.handling = try container.decodeIfPresent(Handling.self, forKey: .handling) ?? .executed
    }

    /// Encodes the JSON form described on the type.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.method, forKey: .method)
        try container.encode(self.path, forKey: .path)
        try container.encodeIfPresent(self.query, forKey: .query)
        try container.encode(self.headers, forKey: .headers)
        try container.encode(self.body.base64EncodedString(), forKey: .body)
        try container.encode(self.bodyText, forKey: .bodyText)
        try container.encode(self.responseStatus, forKey: .responseStatus)
        try container.encode(Self.timestampStyle.format(self.timestamp), forKey: .timestamp)
        try container.encode(self.handling, forKey: .handling)
    }
}

/// The in-memory record of what went over the wire to one simulator; tests assert on it.
///
/// The kit appends one entry per request after answering it, including requests answered by an injected fault.
/// Control-path requests (`/__simulator/...`) are never journaled. The journal is memory-only, is never logged, and keeps
/// at most `capacity` entries (the oldest are dropped first). Safe to use from any task.
public final class RequestJournal: Sendable {
    /// Header names (lower-case) whose values are always masked: credentials, cookies and signatures.
    public static let defaultSensitiveHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "set-cookie",
        "stripe-signature", "x-webhook-signature", "hmacsignature", "signature", "sca-authorization",
    ]

    /// Body field names whose values are always masked: card numbers, security codes and PINs, and their encrypted
    /// forms. Compared with the body's field names lower-cased with everything but letters and digits removed, so
    /// `cardPin`, `card_pin` and a form's `card[pin]` are all `cardpin`.
    public static let defaultSensitiveBodyFields: Set<String> = [
        "pan", "cardnumber", "primaryaccountnumber", "cvv", "cvv2", "cvc", "cvc2", "cvn", "securitycode", "cardsecuritycode",
        "cardcvc", "cardcvv", "pin", "cardpin", "newpin", "pinblock", "encryptedcardnumber", "encryptedsecuritycode",
        "encryptedpin",
    ]

    /// Maximum number of entries kept.
    public let capacity: Int

    private let storage = Mutex<[JournalEntry]>([])

    /// Creates an empty journal.
    /// - Parameter capacity: Maximum number of entries kept (default 10 000; values below 1 are treated as 1).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// All entries, oldest first.
    public func entries() -> [JournalEntry] {
        self.storage.withLock { $0 }
    }

    /// Entries whose path contains `pathContains`, oldest first.
    /// - Parameter pathContains: Text the path must contain.
    public func entries(pathContains: String) -> [JournalEntry] {
        self.storage.withLock { $0.filter { $0.path.contains(pathContains) } }
    }

    /// Entries with the given method (case-insensitive) whose path contains `pathContains`, oldest first.
    /// - Parameters:
    ///   - method: Request method, e.g. `"POST"`.
    ///   - pathContains: Text the path must contain (default: any path).
    public func entries(method: String, pathContains: String = "") -> [JournalEntry] {
        let method = method.uppercased()
        return self.storage.withLock { entries in
            entries.filter { $0.method.uppercased() == method && (pathContains.isEmpty || $0.path.contains(pathContains)) }
        }
    }

    /// The most recent entry, or `nil` if the journal is empty.
    public var last: JournalEntry? {
        self.storage.withLock { $0.last }
    }

    /// Number of entries.
    public var count: Int {
        self.storage.withLock { $0.count }
    }

    /// Removes every entry.
    public func clear() {
        self.storage.withLock { $0.removeAll() }
    }

    /// Appends an entry (the kit does this for every request; simulators normally do not need to).
    /// - Parameter entry: The entry.
    public func record(_ entry: JournalEntry) {
        self.storage.withLock { entries in
            entries.append(entry)
            if entries.count > self.capacity {
                entries.removeFirst(entries.count - self.capacity)
            }
        }
    }

    /// The body with the values of `sensitiveFields` masked, the rest byte for byte: in JSON, a string or number
    /// member with a sensitive name becomes `"<masked>"` at any depth; in a form (`a=1&b=2`), the value becomes
    /// `%3Cmasked%3E`. Other bodies are kept as they are.
    /// - Parameters:
    ///   - body: The request body.
    ///   - sensitiveFields: Normalised names (lower-case letters and digits) to mask.
    public static func maskedBody(_ body: Data, sensitiveFields: Set<String> = defaultSensitiveBodyFields) -> Data {
        let bytes = [UInt8](body)
        guard let first = bytes.first(where: { !Self.isSpace($0) }) else { return body }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return Data(Self.maskedJSON(bytes, sensitiveFields: sensitiveFields))
        }
        guard bytes.contains(UInt8(ascii: "=")), let text = String(bytes: bytes, encoding: .utf8) else { return body }
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let key = pair[..<equals]
            let decoded = key.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(key)
            return sensitiveFields.contains(Self.normalised(decoded)) ? "\(key)=%3Cmasked%3E" : String(pair)
        }
        return Data(pairs.joined(separator: "&").utf8)
    }

    /// A field name lower-cased, letters and digits only.
    static func normalised(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { ($0.value >= 0x61 && $0.value <= 0x7a) || ($0.value >= 0x30 && $0.value <= 0x39) }.map(Character.init))
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d
    }

    /// The end (exclusive) of the JSON string starting at `start` (its opening quote); nil when it never ends.
    private static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if bytes[index] == UInt8(ascii: "\"") { return index + 1 }
            index += 1
        }
        return nil
    }

    private static func maskedJSON(_ bytes: [UInt8], sensitiveFields: Set<String>) -> [UInt8] {
        let masked = Array("\"\(JournalEntry.maskedValue)\"".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\""), let end = stringEnd(bytes, from: index) else {
                output.append(bytes[index])
                index += 1
                continue
            }
            output.append(contentsOf: bytes[index..<end])
            // A string followed by a colon is a member name.
            var colon = end
            while colon < bytes.count, isSpace(bytes[colon]) { colon += 1 }
            guard colon < bytes.count, bytes[colon] == UInt8(ascii: ":"),
                let name = String(bytes: bytes[(index + 1)..<(end - 1)], encoding: .utf8),
                sensitiveFields.contains(normalised((try? JSONDecoder().decode(String.self, from: Data(bytes[index..<end]))) ?? name))
            else {
                index = end
                continue
            }
            var valueStart = colon + 1
            while valueStart < bytes.count, isSpace(bytes[valueStart]) { valueStart += 1 }
            output.append(contentsOf: bytes[end..<valueStart])
            guard valueStart < bytes.count else {
                index = valueStart
                continue
            }
            let first = bytes[valueStart]
            if first == UInt8(ascii: "\""), let valueEnd = stringEnd(bytes, from: valueStart) {
                output.append(contentsOf: masked)
                index = valueEnd
            } else if first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39) {
                var valueEnd = valueStart
                while valueEnd < bytes.count, "0123456789+-.eE".utf8.contains(bytes[valueEnd]) { valueEnd += 1 }
                output.append(contentsOf: masked)
                index = valueEnd
            } else {
                index = valueStart
            }
        }
        return output
    }

    /// Converts request header fields to the journal's form: lower-cased names, repeated fields joined with `", "`,
    /// values of sensitive names replaced by ``JournalEntry/maskedValue``.
    /// - Parameters:
    ///   - fields: The request's header fields.
    ///   - sensitiveNames: Lower-case names to mask.
    static func maskedHeaders(_ fields: HTTPFields, sensitiveNames: Set<String>) -> [String: String] {
        var result: [String: String] = [:]
        for field in fields {
            let name = field.name.canonicalName.lowercased()
            let value = sensitiveNames.contains(name) ? JournalEntry.maskedValue : field.value
            if let existing = result[name] {
                if value != JournalEntry.maskedValue {
                    result[name] = existing + ", " + value
                }
            } else {
                result[name] = value
            }
        }
        return result
    }
}
