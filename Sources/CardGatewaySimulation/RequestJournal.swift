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

    /// The value that replaces sensitive values (`%3Cmasked%3E` in a path, a query or a form body).
    public static let maskedValue = "<masked>"

    /// Request method, e.g. `"POST"`.
    public var method: String
    /// Request path without the query, e.g. `"/v1/payment_intents"` (a card number in it is `%3Cmasked%3E` when the
    /// kit recorded it).
    public var path: String
    /// Raw query string without `?`, or `nil` when the request had none; masked as a form body is when the kit recorded
    /// it (see ``RequestJournal/maskedQuery(_:sensitiveFields:)``).
    public var query: String?
    /// Request headers keyed by lower-cased name (repeated headers joined with `", "`); sensitive values, and card
    /// numbers in the others, are replaced by ``maskedValue``.
    public var headers: [String: String]
    /// Request body bytes, with the values of sensitive fields (card numbers, security codes, PINs, certificate chains:
    /// see ``RequestJournal/defaultSensitiveBodyFields``) and card numbers under any name replaced by ``maskedValue``
    /// when the kit recorded it (see ``RequestJournal/maskedBody(_:sensitiveFields:)``).
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

    /// Decodes the JSON form described on the type. `bodyText` is used only when `body` is absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.method = try container.decode(String.self, forKey: .method)
        self.path = try container.decode(String.self, forKey: .path)
        self.query = try container.decodeIfPresent(String.self, forKey: .query)
        self.headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        if let base64 = try container.decodeIfPresent(String.self, forKey: .body) {
            guard let data = ByteEncoding.decodeBase64(base64) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .body, in: container, debugDescription: "body is not valid base64")
            }
            self.body = data
        } else {
            self.body = Data((try container.decodeIfPresent(String.self, forKey: .bodyText) ?? "").utf8)
        }
        self.responseStatus = try container.decode(Int.self, forKey: .responseStatus)
        let timestamp = try container.decode(String.self, forKey: .timestamp)
        guard let date = SimulatorDateTime.parse(timestamp) else {
            throw DecodingError.dataCorruptedError(
                forKey: .timestamp, in: container, debugDescription: "timestamp is not ISO 8601")
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
        try container.encode(ByteEncoding.base64(self.body), forKey: .body)
        try container.encode(self.bodyText, forKey: .bodyText)
        try container.encode(self.responseStatus, forKey: .responseStatus)
        try container.encode(SimulatorDateTime.format(self.timestamp, fraction: .milliseconds), forKey: .timestamp)
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

    /// Body field names whose values are always masked, whatever the value is (a string, a number, an array or an
    /// object): the journal's one table of sensitive fields. Compared with the body's field names lower-cased with
    /// everything but letters and digits removed, so `cardPin`, `card_pin` and a form's `card[pin]` are all `cardpin`,
    /// and `CVC`, `Cvc` and `cvc` are all `cvc`. A card number is masked under any name besides (see
    /// ``maskedBody(_:sensitiveFields:)``), so a field this table does not name cannot leak one.
    public static let defaultSensitiveBodyFields: Set<String> = [
        // Card numbers, plain or encrypted.
        "pan", "cardnumber", "primaryaccountnumber", "encryptedcardnumber",
        // Security codes (CVV, CVC, CVN; Marqeta's `cvv_number`, Trust Payments' `securitycode`), plain or encrypted.
        "cvv", "cvv2", "cvc", "cvc2", "cvn", "cvvnumber", "securitycode", "cardsecuritycode", "cardcvc", "cardcvv",
        "encryptedsecuritycode",
        // PINs and PIN blocks (Paysafe's `cardPin`, Marqeta's `pin` and `card_pin_block`, Adyen's `encryptedPinBlock`).
        "pin", "cardpin", "newpin", "pinblock", "cardpinblock", "encryptedpin", "encryptedpinblock",
        // Wallet certificate chains (Apple Pay's leaf and subordinate certificates), masked wholesale.
        "certificates", "leafcertificate", "subordinatecertificate",
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
            entries.filter {
                $0.method.uppercased() == method && (pathContains.isEmpty || $0.path.contains(pathContains))
            }
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

    /// The body with its card data masked, the rest byte for byte.
    ///
    /// - JSON (a body starting with `{` or `[`): at any depth, the value of a member whose name is in
    ///   `sensitiveFields` becomes `"<masked>"` whatever it is (a string, a number, an array or an object: a
    ///   certificate chain goes wholesale; `true`, `false` and `null` stay); a card number inside any string becomes
    ///   `<masked>` within it (`"paid with <masked>"`), and an integer that is a card number becomes `"<masked>"`.
    /// - A form (`a=1&b=2`): the value of a sensitive key (the whole key, one of its bracketed parts or two adjacent
    ///   parts: `card[number]`, `payment_method_data[card][cvc]`, `certificates[0]`) becomes `%3Cmasked%3E`; a card
    ///   number in any other key or value becomes `%3Cmasked%3E` too.
    /// - Any other body: its card numbers become `<masked>`.
    ///
    /// A card number is 13 to 19 digits, the first not `0`, that pass the Luhn check, written as one run or in
    /// groups a single space or dash apart (`4111111111111111`, `4111 1111 1111 1111`, `4111-1111-1111-1111`), and
    /// standing on its own: not glued to letters or other digits, not after a `+` (a phone number), not part of a
    /// decimal or of a dashed identifier such as a UUID. Ids, amounts, dates and tokens stay readable.
    /// - Parameters:
    ///   - body: The request body.
    ///   - sensitiveFields: Normalised names (lower-case letters and digits) to mask.
    public static func maskedBody(_ body: Data, sensitiveFields: Set<String> = defaultSensitiveBodyFields) -> Data {
        JournalMasking.body(body, sensitiveFields: sensitiveFields)
    }

    /// A raw query string (without `?`) masked as a form body is (see ``maskedBody(_:sensitiveFields:)``): the value
    /// of a sensitive key and any card number become `%3Cmasked%3E`; everything else stays as sent.
    /// - Parameters:
    ///   - query: The raw query string.
    ///   - sensitiveFields: Normalised names (lower-case letters and digits) to mask.
    public static func maskedQuery(_ query: String, sensitiveFields: Set<String> = defaultSensitiveBodyFields) -> String
    {
        JournalMasking.form(query, sensitiveFields: sensitiveFields)
    }

    /// A request path with any card number in it replaced by `%3Cmasked%3E`.
    static func maskedPath(_ path: String) -> String {
        JournalMasking.maskingCardNumbers(path, with: JournalMasking.maskedURLEncoded)
    }

    /// A field name lower-cased, letters and digits only.
    static func normalised(_ name: String) -> String {
        JournalMasking.normalised(name)
    }

    /// Converts request header fields to the journal's form: lower-cased names, repeated fields joined with `", "`,
    /// values of sensitive names replaced by ``JournalEntry/maskedValue``, card numbers in other values too.
    /// - Parameters:
    ///   - fields: The request's header fields.
    ///   - sensitiveNames: Lower-case names to mask.
    static func maskedHeaders(_ fields: HTTPFields, sensitiveNames: Set<String>) -> [String: String] {
        var result: [String: String] = [:]
        for field in fields {
            let name = field.name.canonicalName.lowercased()
            let value =
                sensitiveNames.contains(name)
                ? JournalEntry.maskedValue : JournalMasking.maskingCardNumbers(field.value)
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
