@testable import CardGateway
import Foundation
import HTTPTypes
import SharedTestSupport
import Testing

// MARK: - Types mirroring the adapters' wire shapes (theirs are internal to the adapter modules)

/// Like `StripeExpandable`: an object first for the cardholder, else an id first, each time with `try?`.
enum ExpandableMirror<Object: Decodable & Equatable & Sendable>: Decodable, Equatable, Sendable {
    case id(String)
    case object(Object)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if Object.self is StripeCardholderMirror.Type {
            do {
                self = .object(try container.decode(Object.self))
            } catch {
                guard let id = try? container.decode(String.self) else { throw error }
                self = .id(id)
            }
        } else if let id = try? container.decode(String.self) {
            self = .id(id)
        } else {
            self = .object(try container.decode(Object.self))
        }
    }
}

struct StripeCardholderMirror: Decodable, Equatable, Sendable {
    var id: String
    var name: String?
}

struct StripeIdentifiedMirror: Decodable, Equatable, Sendable {
    var id: String
}

struct StripeCardMirror: Decodable, Equatable, Sendable {
    struct Wallets: Decodable, Equatable, Sendable {
        struct Wallet: Decodable, Equatable, Sendable {
            var eligible: Bool
            var ineligibleReason: String?
            enum CodingKeys: String, CodingKey {
                case eligible
                case ineligibleReason = "ineligible_reason"
            }
        }
        var applePay: Wallet?
        var googlePay: Wallet?
        var primaryAccountIdentifier: String?
        enum CodingKeys: String, CodingKey {
            case applePay = "apple_pay"
            case googlePay = "google_pay"
            case primaryAccountIdentifier = "primary_account_identifier"
        }
    }
    var id: String
    var object: String?
    var status: String
    var type: String?
    var brand: String?
    var last4: String?
    var expMonth: Int?
    var expYear: Int?
    var currency: String?
    var created: Int64?
    var cancellationReason: String?
    var cardholder: ExpandableMirror<StripeCardholderMirror>?
    var wallets: Wallets?
    var livemode: Bool?
    var metadata: [String: JSONValue]?
    enum CodingKeys: String, CodingKey {
        case id, object, status, type, brand, last4, currency, created, cardholder, wallets, livemode, metadata
        case expMonth = "exp_month"
        case expYear = "exp_year"
        case cancellationReason = "cancellation_reason"
    }
}

struct StripeTokenMirror: Decodable, Equatable, Sendable {
    var id: String
    var object: String?
    var card: ExpandableMirror<StripeIdentifiedMirror>
    var status: String
    var walletProvider: String?
    var network: String?
    var last4: String?
    var created: Int64?
    var deviceFingerprint: String?
    var networkUpdatedAt: Int64?
    enum CodingKeys: String, CodingKey {
        case id, object, card, status, network, last4, created
        case walletProvider = "wallet_provider"
        case deviceFingerprint = "device_fingerprint"
        case networkUpdatedAt = "network_updated_at"
    }
}

struct StripeEphemeralKeyMirror: Decodable, Equatable, Sendable {
    var id: String
    var object: String?
    var created: Int64?
    var expires: Int64
    var secret: String?
    var livemode: Bool?
}

struct ListMirror<Item: Decodable & Equatable & Sendable>: Decodable, Equatable, Sendable {
    var object: String?
    var data: [Item]
    var hasMore: Bool?
    enum CodingKeys: String, CodingKey {
        case object, data
        case hasMore = "has_more"
    }
}

enum CardStateMirror: String, Decodable, Equatable, Sendable {
    case active = "ACTIVE", suspended = "SUSPENDED", terminated = "TERMINATED", unactivated = "UNACTIVATED"
}

struct MarqetaCardMirror: Decodable, Equatable, Sendable {
    var token: String
    var userToken: String?
    var lastFour: String
    var expiration: String?
    var state: CardStateMirror
    var pinIsSet: Bool?
    var expedite: Bool?
    var metadata: [String: String]?
    var createdTime: String?
    enum CodingKeys: String, CodingKey {
        case token, expiration, state, expedite, metadata
        case userToken = "user_token"
        case lastFour = "last_four"
        case pinIsSet = "pin_is_set"
        case createdTime = "created_time"
    }
}

struct AdyenInstrumentMirror: Decodable, Equatable, Sendable {
    struct Card: Decodable, Equatable, Sendable {
        struct Expiry: Decodable, Equatable, Sendable {
            var month: String
            var year: String
        }
        var brand: String?
        var brandVariant: String?
        var cardholderName: String?
        var formFactor: String?
        var bin: String?
        var expiration: Expiry?
        var lastFour: String?
        var number: String?
    }
    var id: String
    var balanceAccountId: String
    var description: String?
    var issuingCountryCode: String?
    var status: String?
    var type: String
    var card: Card?
}

/// Every primitive, optional, so that most random documents decode partly; the names are the generator's.
struct FixedMirror: Decodable, Equatable, Sendable {
    var a: Int?
    var b: String?
    var c: Double?
    var d: Bool?
    var e: [Int8]?
    var f: UInt64?
    var g: Int64?
    var h: Float?
    var i: [String: JSONValue]?
    var j: UInt8?
    var k: Int32?
    var l: [FixedMirror]?
    var m: JSONValue?
}

/// Everything `Decoder` offers, with what was seen (coding paths as text) kept in the value.
struct ProbeMirror: Decodable, Equatable, Sendable {
    var keys: [String]
    var path: [String]
    var nestedPath: [String]
    var hasA: Bool
    var aIsNil: Bool?
    var count: Int?
    var elements: [String]
    var superValue: JSONValue?
    var intThenString: String

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        keys = container.allKeys.map(\.stringValue).sorted()
        path = decoder.codingPath.map(\.stringValue)
        hasA = container.contains(AnyKey(stringValue: "a"))
        aIsNil = try? container.decodeNil(forKey: AnyKey(stringValue: "a"))
        elements = []
        count = nil
        nestedPath = []
        if let list = try? container.nestedUnkeyedContainer(forKey: AnyKey(stringValue: "list")) {
            var list = list
            count = list.count
            nestedPath = list.codingPath.map(\.stringValue)
            while !list.isAtEnd {
                if try list.decodeNil() {
                    elements.append("null")
                } else if let nested = try? list.nestedContainer(keyedBy: AnyKey.self) {
                    elements.append("object:" + nested.codingPath.map(\.stringValue).joined(separator: "/"))
                } else if let number = try? list.decode(Int.self) {
                    elements.append("int:\(number)")
                } else if let text = try? list.decode(String.self) {
                    elements.append("string:" + text)
                } else {
                    elements.append("other:" + (try list.decode(JSONValue.self)).description)
                }
            }
        }
        superValue = try? JSONValue(from: container.superDecoder(forKey: AnyKey(stringValue: "s")))
        // A user type catching errors: an Int first, then a String (a "1.0" makes the fast path give up).
        if let number = try? container.decode(Int.self, forKey: AnyKey(stringValue: "n")) {
            intThenString = "int:\(number)"
        } else if let text = try? container.decode(String.self, forKey: AnyKey(stringValue: "n")) {
            intThenString = "string:" + text
        } else {
            intThenString = "none"
        }
    }
}

/// Keeps its decoder past `decode` (which nothing should do): using it later must fail, never read freed memory.
final class DecoderKeeper: Decodable, @unchecked Sendable {
    let decoder: any Decoder
    init(from decoder: any Decoder) throws { self.decoder = decoder }
}

struct SpecialMirror: Decodable, Equatable, Sendable {
    var url: URL?
    var date: Date?
    var data: Data?
    var decimal: Decimal?
}

// MARK: - Comparison

/// The outcome of one decoding, comparable across the two decoders: the value's text, or the error's case and
/// coding path.
enum Outcome: Equatable, CustomStringConvertible {
    case value(String)
    case error(String)

    var description: String {
        switch self {
        case .value(let text): return "value \(text.prefix(300))"
        case .error(let text): return "error \(text)"
        }
    }

    static func of<T>(_ body: () throws -> T, render: (T) -> String) -> Outcome {
        do {
            return .value(render(try body()))
        } catch let error as DecodingError {
            func path(_ keys: [any CodingKey]) -> String { keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".") }
            switch error {
            case .keyNotFound(let key, let context): return .error("keyNotFound \(key.stringValue) at \(path(context.codingPath))")
            case .valueNotFound(let type, let context): return .error("valueNotFound \(type) at \(path(context.codingPath))")
            case .typeMismatch(let type, let context): return .error("typeMismatch \(type) at \(path(context.codingPath))")
            case .dataCorrupted(let context): return .error("dataCorrupted at \(path(context.codingPath))")
            @unknown default: return .error("unknown")
            }
        } catch {
            return .error("other \(type(of: error))")
        }
    }
}

/// A JSONValue as text that tells -0 from 0 and sorts object members, so that equal text is equal values.
func exactText(_ value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool(let value): return String(value)
    case .number(let value): return "n\(value.bitPattern)"
    case .string(let value): return "s" + String(reflecting: Array(value.unicodeScalars.map(\.value)))
    case .array(let values): return "[" + values.map(exactText).joined(separator: ",") + "]"
    case .object(let members): return "{" + members.keys.sorted().map { String(reflecting: Array($0.unicodeScalars.map(\.value))) + ":" + exactText(members[$0]!) }.joined(separator: ",") + "}"
    }
}

func render<T>(_ value: T) -> String {
    if let value = value as? JSONValue { return exactText(value) }
    if let value = value as? [String: JSONValue] { return exactText(.object(value)) }
    if let value = value as? [JSONValue] { return exactText(.array(value)) }
    if let value = value as? Double { return "d\(value.bitPattern)" }
    if let value = value as? Float { return "f\(value.bitPattern)" }
    return String(reflecting: value)
}

/// Both decoders' outcomes for `data` as `type`, recorded as an issue when they differ: equal values (`==`, and
/// the same text for JSON values and floating point, so that -0 is not 0), or the same error case and coding path.
///
/// JSONDecoder reads `[String: X]` in its dictionary's order, which differs from one dictionary to the next, so
/// with several bad members its own error names one of them at random: an error that differs is compared with
/// more of its answers before it counts as different.
@discardableResult
func expectSameOutcome<T: Decodable & Equatable>(
    _ type: T.Type, _ data: Data, _ label: @autoclosure () -> String = "", sourceLocation: SourceLocation = #_sourceLocation
) -> Outcome {
    var referenceValue: T?
    let reference = Outcome.of({ try JSONDecoder().decode(type, from: data) }, render: { referenceValue = $0; return render($0) })
    var fastValue: T?
    let fast = Outcome.of({ try ResponseDecoder().decode(type, from: data) }, render: { fastValue = $0; return render($0) })
    func same(_ outcome: Outcome, _ value: T?) -> Bool {
        switch (outcome, reference) {
        case (.value(let text), .value(let expected)):
            if T.self is JSONValue.Type || T.self is Double.Type || T.self is Float.Type || T.self is [String: JSONValue].Type || T.self is [JSONValue].Type {
                return text == expected
            }
            return value == referenceValue
        case (.error(let text), .error(let expected)):
            if outcome == reference { return true }
            for _ in 0..<30 where Outcome.of({ try JSONDecoder().decode(type, from: data) }, render: render) == .error(text) { return true }
            // A type that decodes objects as dictionaries meets their members in the dictionary's order, which
            // depends on where its storage was allocated: with two bad members, either may be the one an error
            // names, and retrying in a loop reuses the same storage. Both errors are JSONDecoder's (the fast path
            // never makes one), so for these types the error's kind and type are what must match, not its path.
            if T.self is JSONValue.Type || T.self is [String: JSONValue].Type || T.self is [JSONValue].Type {
                func kind(_ text: String) -> String { text.range(of: " at ").map { String(text[..<$0.lowerBound]) } ?? text }
                return kind(text) == kind(expected)
            }
            return false
        default:
            return false
        }
    }
    #expect(same(fast, fastValue), "\(fast) != \(reference): \(T.self) \(label()): \(String(decoding: data.prefix(200), as: UTF8.self))", sourceLocation: sourceLocation)
    // Whatever the fast path returns on its own is the reference's value.
    if let value = ResponseDecoder().fastDecode(type, from: data) {
        #expect(same(.value(render(value)), value), "fast path only, \(T.self) \(label())", sourceLocation: sourceLocation)
    }
    return reference
}

// MARK: - A seeded generator of JSON documents

struct DocumentGenerator {
    var random: SeededGenerator

    static let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "list", "s", "super", "", "é", "e\\u0301", "\\u0061", "K", "\u{212A}", "long_member_name_over_fifteen"]
    static let numbers = [
        "0", "-0", "1", "-1", "1.0", "-1.5", "1e2", "1E+2", "2.5e-3", "1e400", "-1e400", "1e-400", "127", "128", "-128", "-129", "255", "256",
        "32767", "2147483647", "2147483648", "-2147483648", "-2147483649", "9007199254740992", "9007199254740993",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "123456789012345678901234567890", "0.1", "3.4028234663852886e38", "3.5e38",
        "1.17549435e-38", "1.4e-45", "0.30000000000000004", "100000000000000000000000", "4294967295", "65535", "65536",
    ]
    static let stringPieces = [
        "plain", "", "with space", "\\\"", "\\\\", "\\/", "\\b\\f\\n\\r\\t", "\\u0000", "\\u00e9", "\\u20AC", "\\ud83d\\ude00", "\\ud83d", "\\ude00",
        "\\uD83D\\uDE00", "é", "€", "😀", "e\u{301}", "a longer string than fifteen bytes", "\\u0041BC", "\\uDBFF\\uDFFF", "\\ud800x",
    ]

    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    mutating func whitespace() -> String { chance(20) ? pick([" ", "\n", "\t", "\r\n", "  "]) : "" }

    mutating func string() -> String {
        "\"" + (0..<Int.random(in: 0...3, using: &random)).map { _ in pick(Self.stringPieces) }.joined() + "\""
    }

    mutating func value(depth: Int) -> String {
        let roll = Int.random(in: 0..<100, using: &random)
        let body: String
        switch roll {
        case 0..<20 where depth < 5:
            let count = Int.random(in: 0...6, using: &random)
            body = "{" + (0..<count).map { _ in whitespace() + "\"" + pick(Self.names) + "\"" + whitespace() + ":" + value(depth: depth + 1) }.joined(separator: ",") + "}"
        case 20..<35 where depth < 5:
            let count = Int.random(in: 0...5, using: &random)
            body = "[" + (0..<count).map { _ in value(depth: depth + 1) }.joined(separator: ",") + "]"
        case 0..<50: body = pick(Self.numbers)
        case 50..<75: body = string()
        case 75..<83: body = "true"
        case 83..<91: body = "false"
        default: body = "null"
        }
        return whitespace() + body + whitespace()
    }

    /// A document, sometimes damaged: truncated, with an invalid byte, a byte order mark or trailing text.
    mutating func document() -> Data {
        var bytes = Array(value(depth: 0).utf8)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<6 where bytes.count > 1: bytes.removeLast(Int.random(in: 1..<bytes.count, using: &random))
        case 6..<10: bytes.insert(pick([0xFF, 0xC3, 0x00, 0x01, 0x80, 0xED]), at: Int.random(in: 0...bytes.count, using: &random))
        case 10..<12: bytes.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: 0)
        case 12..<14: bytes.append(contentsOf: Array(pick([",", "}", "x", " 1", "]"]).utf8))
        default: break
        }
        return Data(bytes)
    }
}

// MARK: - Tests

@Suite("ResponseDecoder: JSONDecoder's answers, with fewer allocations")
struct ResponseDecoderTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static func fixtures() throws -> [URL] {
        let tests = try FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)
        var files: [URL] = []
        for folder in tests {
            let fixtures = folder.appendingPathComponent("Fixtures")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: fixtures.path) else { continue }
            files += names.filter { $0.hasSuffix(".json") }.sorted().map { fixtures.appendingPathComponent($0) }
        }
        return files
    }

    static func stripeResource(_ name: String) throws -> Data {
        let document = try Data(contentsOf: root.appendingPathComponent("StripeTests/Fixtures/stripe-fixtures3-issuing.json"))
        let value = try JSONDecoder().decode(JSONValue.self, from: document)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(try #require(value["resources"]?[name]))
    }

    @Test("every fixture file decodes as JSONValue, [String: JSONValue] and the mirrored wire types as JSONDecoder decodes it")
    func fixtureFiles() throws {
        let files = try Self.fixtures()
        #expect(files.count >= 15)
        for file in files {
            let data = try Data(contentsOf: file)
            let name = file.lastPathComponent
            expectSameOutcome(JSONValue.self, data, name)
            expectSameOutcome([String: JSONValue].self, data, name)
            expectSameOutcome([JSONValue].self, data, name)
            expectSameOutcome(StripeCardMirror.self, data, name)
            expectSameOutcome(MarqetaCardMirror.self, data, name)
            expectSameOutcome(AdyenInstrumentMirror.self, data, name)
            expectSameOutcome(FixedMirror.self, data, name)
            expectSameOutcome(ProbeMirror.self, data, name)
            expectSameOutcome(ListMirror<MarqetaCardMirror>.self, data, name)
        }
    }

    @Test("the Stripe resources decode as the mirrored wire types as JSONDecoder decodes them")
    func stripeResources() throws {
        let card = try Self.stripeResource("issuing.card")
        if case .error(let text) = expectSameOutcome(StripeCardMirror.self, card) { Issue.record("the card does not decode: \(text)") }
        let token = try Self.stripeResource("issuing.token")
        if case .error(let text) = expectSameOutcome(StripeTokenMirror.self, token) { Issue.record("the token does not decode: \(text)") }
        let key = try Self.stripeResource("ephemeral_key")
        if case .error(let text) = expectSameOutcome(StripeEphemeralKeyMirror.self, key) { Issue.record("the key does not decode: \(text)") }
        for name in ["issuing.card", "issuing.token", "ephemeral_key", "issuing.cardholder", "issuing.authorization", "issuing.transaction"] {
            let data = try Self.stripeResource(name)
            expectSameOutcome(JSONValue.self, data, name)
            expectSameOutcome(StripeCardMirror.self, data, name)
            expectSameOutcome(StripeTokenMirror.self, data, name)
            expectSameOutcome(StripeEphemeralKeyMirror.self, data, name)
            expectSameOutcome(ProbeMirror.self, data, name)
            // The card as a one-element list, with the token's card as an object (an expandable read the other way).
            let list = Data(#"{"object":"list","data":["#.utf8) + data + Data(#"],"has_more":false}"#.utf8)
            expectSameOutcome(ListMirror<StripeCardMirror>.self, list, name)
            expectSameOutcome(ListMirror<StripeTokenMirror>.self, list, name)
        }
        var expanded = try #require(try JSONDecoder().decode(JSONValue.self, from: token).objectValue)
        expanded["card"] = .object(["id": .string("ic_123"), "object": .string("issuing.card")])
        expectSameOutcome(StripeTokenMirror.self, try JSONEncoder().encode(expanded), "expanded card")
        var idOnly = try #require(try JSONDecoder().decode(JSONValue.self, from: card).objectValue)
        idOnly["cardholder"] = .string("ich_123")
        expectSameOutcome(StripeCardMirror.self, try JSONEncoder().encode(idOnly), "cardholder as id")
    }

    @Test("the fast path is taken for a Stripe card answer, a Marqeta card and an Adyen payment instrument")
    func fastPathTaken() throws {
        let card = try Self.stripeResource("issuing.card")
        let fast = try #require(ResponseDecoder().fastDecode(StripeCardMirror.self, from: card))
        #expect(fast == (try JSONDecoder().decode(StripeCardMirror.self, from: card)))
        #expect(fast.cardholder != nil && fast.wallets != nil && fast.expYear != nil)
        #expect(ResponseDecoder().fastDecode(JSONValue.self, from: card) != nil)
        let token = try Self.stripeResource("issuing.token")
        #expect(ResponseDecoder().fastDecode(StripeTokenMirror.self, from: token) != nil)
        let marqeta = try Data(contentsOf: Self.root.appendingPathComponent("MarqetaTests/Fixtures/card.json"))
        #expect(ResponseDecoder().fastDecode(MarqetaCardMirror.self, from: marqeta) != nil)
        let adyen = try Data(contentsOf: Self.root.appendingPathComponent("AdyenTests/Fixtures/payment-instrument.json"))
        #expect(ResponseDecoder().fastDecode(AdyenInstrumentMirror.self, from: adyen) != nil)
    }

    @Test("what the fast path is not sure of is left to JSONDecoder, whose answer is returned", arguments: [
        (#"{"a":1.0}"#, "1.0 as an integer"), (#"{"a":1e2}"#, "an exponent as an integer"), (#"{"a":-0}"#, "-0 as an integer"),
        (#"{"a":99999999999999999999}"#, "an integer too big"), (#"{"c":1e400}"#, "a Double too big"), (#"{"h":0.1}"#, "an inexact Float"),
        ("\u{FEFF}{\"a\":1}", "a byte order mark"), (#"{"a":1,"a":2}"#, "a repeated name"), (#"{"\u0061":1}"#, "an escaped name"),
        (#"{"b":"\ud83d"}"#, "a lone surrogate"), (#"{"j":-1}"#, "a negative unsigned"), (#"{"j":256}"#, "UInt8 overflow"),
    ])
    func leftToJSONDecoder(document: String, label: String) throws {
        let data = Data(document.utf8)
        #expect(ResponseDecoder().fastDecode(FixedMirror.self, from: data) == nil, "\(label)")
        expectSameOutcome(FixedMirror.self, data, label)
        expectSameOutcome(JSONValue.self, data, label)
        expectSameOutcome(ProbeMirror.self, Data(document.replacingOccurrences(of: #""a""#, with: #""n""#).utf8), label)
    }

    @Test("a user type's try? over a bailed read still ends in JSONDecoder's answer")
    func caughtBail() throws {
        for document in [#"{"n":1.0}"#, #"{"n":"text"}"#, #"{"n":7}"#, #"{"n":null,"list":[1,"x",null,{"q":1},[2]],"s":{"t":[]}}"#, #"{"list":[1.5]}"#] {
            expectSameOutcome(ProbeMirror.self, Data(document.utf8), document)
        }
    }

    @Test("Date, Data, URL and Decimal are JSONDecoder's")
    func specialTypes() throws {
        for document in [
            #"{"url":"https://example.com/a b","date":12.5,"data":"AQID","decimal":1.10}"#, #"{"url":"relative/path"}"#, #"{"date":"x"}"#,
            #"{"data":"not base64!"}"#, #"{"decimal":12345678901234567890.123456789}"#,
        ] {
            expectSameOutcome(SpecialMirror.self, Data(document.utf8), document)
        }
        expectSameOutcome([URL].self, Data(#"["https://a.example"]"#.utf8))
        expectSameOutcome(Decimal.self, Data("3.14".utf8))
    }

    @Test("primitives at the top level and their edges")
    func primitives() throws {
        for document in DocumentGenerator.numbers + ["true", "null", "\"s\"", "[]", "{}", " 1 ", "", " ", "01", "1.", "-", "+1", ".5", "1e", "0x10", "Infinity", "NaN"] {
            let data = Data(document.utf8)
            expectSameOutcome(Int.self, data, document)
            expectSameOutcome(Int8.self, data, document)
            expectSameOutcome(Int16.self, data, document)
            expectSameOutcome(Int32.self, data, document)
            expectSameOutcome(Int64.self, data, document)
            expectSameOutcome(UInt.self, data, document)
            expectSameOutcome(UInt8.self, data, document)
            expectSameOutcome(UInt16.self, data, document)
            expectSameOutcome(UInt32.self, data, document)
            expectSameOutcome(UInt64.self, data, document)
            expectSameOutcome(Double.self, data, document)
            expectSameOutcome(Float.self, data, document)
            expectSameOutcome(Bool.self, data, document)
            expectSameOutcome(String.self, data, document)
            expectSameOutcome(Int?.self, data, document)
            expectSameOutcome(JSONValue.self, data, document)
        }
        #expect(ResponseDecoder().fastDecode(Int64.self, from: Data("-9223372036854775808".utf8)) == Int64.min)
        #expect(ResponseDecoder().fastDecode(UInt64.self, from: Data("18446744073709551615".utf8)) == UInt64.max)
    }

    @Test("2 000 generated documents (escapes, surrogates, number edges, damage) decode alike")
    func generatedDocuments() throws {
        var generator = DocumentGenerator(random: SeededGenerator(state: 0x5EED_22))
        var fastTaken = 0
        for number in 0..<2_000 {
            let data = generator.document()
            expectSameOutcome(JSONValue.self, data, "document \(number)")
            expectSameOutcome(FixedMirror.self, data, "document \(number)")
            expectSameOutcome([String: JSONValue].self, data, "document \(number)")
            expectSameOutcome([JSONValue].self, data, "document \(number)")
            expectSameOutcome(ProbeMirror.self, data, "document \(number)")
            expectSameOutcome(String.self, data, "document \(number)")
            expectSameOutcome(Int64.self, data, "document \(number)")
            if ResponseDecoder().fastDecode(JSONValue.self, from: data) != nil { fastTaken += 1 }
        }
        // The generator is not all edge cases: most of its documents take the fast path.
        #expect(fastTaken > 500)
    }

    @Test("strings and whitespace are read eight bytes at a time: every kind of byte at every offset of a group reads as JSONDecoder reads it")
    func eightByteGroups() throws {
        // Bytes a string's scan must stop at (or not), each put at offsets 0…19 of a 20-byte run, which covers every
        // lane of the first groups and the byte-by-byte tail.
        let inString: [[UInt8]] = [
            Array("\\\"".utf8), Array("\\n".utf8), Array("\\u00e9".utf8), Array("\\\\".utf8), Array("é".utf8), Array("😀".utf8),
            [0x01], [0x1F], [0x7F], [0x20], [0x7E], [0xFF], [0xC3], [0xE2, 0x82], Array("\"".utf8),
        ]
        var fastTaken = 0
        for special in inString {
            for offset in 0..<20 {
                let text = [UInt8](repeating: UInt8(ascii: "a"), count: offset) + special + [UInt8](repeating: UInt8(ascii: "b"), count: 19 - offset)
                let document = Data([UInt8(ascii: "\"")] + text + [UInt8(ascii: "\"")])
                expectSameOutcome(String.self, document, "\(special) at \(offset)")
                let object = Data(Array("{\"k\":\"".utf8) + text + Array("\",\"n\":1}".utf8))
                expectSameOutcome([String: JSONValue].self, object, "\(special) at \(offset) in an object")
                if ResponseDecoder().fastDecode(String.self, from: document) != nil { fastTaken += 1 }
            }
        }
        // The valid strings (escapes, UTF-8, DEL, space, tilde) are read by the fast path, not left to JSONDecoder.
        #expect(fastTaken == 9 * 20)

        // Whitespace runs of every length up to 19 around every token, with a byte that is not JSON whitespace (vertical
        // tab, no-break space, a letter) at every offset of some of them.
        let whitespace: [UInt8] = [0x20, 0x0A, 0x0D, 0x09]
        for length in 0..<20 {
            let run = (0..<length).map { whitespace[($0 * 7 + length) % whitespace.count] }
            let pieces = ["{", "\"k\"", ":", "[", "true", ",", "null", ",", "false", ",", "\"v\"", ",", "12", "]", "}"]
            let document = Data(run + pieces.flatMap { Array($0.utf8) + run })
            expectSameOutcome(JSONValue.self, document, "whitespace runs of \(length)")
            #expect(ResponseDecoder().fastDecode(JSONValue.self, from: document) != nil, "whitespace runs of \(length)")
            for intruder: [UInt8] in [[0x0B], [0xC2, 0xA0], [UInt8(ascii: "x")]] {
                for offset in 0...length {
                    let damaged = Array(run[..<offset]) + intruder + Array(run[offset...])
                    expectSameOutcome(JSONValue.self, Data(Array("{\"k\":".utf8) + damaged + Array("1}".utf8)), "\(intruder) at \(offset) of \(length)")
                }
            }
        }
        // Literals, whole and cut short at the end of the document.
        for literal in ["true", "false", "null"] {
            for cut in 0...literal.count {
                expectSameOutcome(JSONValue.self, Data(("[" + literal.prefix(cut)).utf8), "\(literal) cut at \(cut)")
                expectSameOutcome(JSONValue.self, Data(literal.prefix(cut).utf8), "\(literal) cut at \(cut), alone")
            }
            expectSameOutcome(JSONValue.self, Data((literal + "e").utf8), "\(literal) and more")
            expectSameOutcome(JSONValue.self, Data(literal.uppercased().utf8), literal.uppercased())
        }
    }

    @Test("arrays are filled at their size with what Array.init(from:) would give them, and left to JSONDecoder where it would fail")
    func sizedArrays() throws {
        let documents = [
            "[]", "[1]", "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]", "[1,null,3]", "[1,\"x\",3]", "[[1,2],[],[3]]", "[[1],[\"x\"]]",
            #"[{"a":1},{"b":"s"},{"l":[{"a":2}]}]"#, #"[{"a":1},{"a":"s"}]"#, "null", "{}", "1", #"["a","é","\u00e9"]"#,
        ]
        var fastTaken = 0
        for text in documents {
            let data = Data(text.utf8)
            expectSameOutcome([Int].self, data, text)
            expectSameOutcome([Int?].self, data, text)
            expectSameOutcome([[Int]].self, data, text)
            expectSameOutcome([String].self, data, text)
            expectSameOutcome([FixedMirror].self, data, text)
            expectSameOutcome([JSONValue].self, data, text)
            expectSameOutcome(FixedMirror.self, Data(#"{"l":\#(text),"e":\#(text)}"#.utf8), "in an object: \(text)")
            if let value = ResponseDecoder().fastDecode([Int].self, from: data) {
                fastTaken += 1
                #expect(value.capacity <= value.count + 2, "made at its size (growing by doubling would give 32 for 17): \(text)")
            }
        }
        // The arrays of integers ("[]", "[1]", the seventeen) are read by the fast path, not left to JSONDecoder.
        #expect(fastTaken == 3)
    }

    @Test("a decoder kept past decode reads nothing")
    func keptDecoder() throws {
        let kept = try ResponseDecoder().decode(DecoderKeeper.self, from: Data(#"{"a":"some text long enough to be allocated"}"#.utf8))
        #expect(throws: (any Error).self) { try kept.decoder.container(keyedBy: ProbeMirror.AnyKey.self) }
        #expect(throws: (any Error).self) { try kept.decoder.singleValueContainer().decode(String.self) }
        #expect(kept.decoder.codingPath.isEmpty)
    }

    @Test("deep nesting is left to JSONDecoder")
    func deepNesting() throws {
        for depth in [255, 256, 257, 600] {
            let data = Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
            expectSameOutcome(JSONValue.self, data, "depth \(depth)")
        }
    }

    @Test("ProviderResponse.decode reads with ResponseDecoder and reports JSONDecoder's paths")
    func providerResponse() throws {
        let response = ProviderResponse(status: 200, headers: [:], body: Data(#"{"id":"ic_1","status":"active","exp_month":"x"}"#.utf8))
        let card: StripeIdentifiedMirror = try response.decode(StripeIdentifiedMirror.self, provider: "Stripe", what: "card", instance: "s", kind: "stripe", requestID: nil)
        #expect(card.id == "ic_1")
        let error = #expect(throws: CardGatewayError.self) {
            try response.decode(StripeCardMirror.self, provider: "Stripe", what: "card", instance: "s", kind: "stripe", requestID: nil)
        }
        #expect(error?.message == "Stripe's card answer could not be read: exp_month has the wrong type")
        let same = #expect(throws: CardGatewayError.self) {
            try response.decode(StripeCardMirror.self, using: JSONDecoder(), provider: "Stripe", what: "card", instance: "s", kind: "stripe", requestID: nil)
        }
        #expect(same?.message == error?.message)
    }
}
