import Foundation

/// A JSON value the simulator builds its answers from, written by JSONEncoder (pretty-printed). Used for every
/// body the simulator sends, and for the objects of ``StripeSimulator/signedWebhook(type:object:previousAttributes:timestamp:secret:)``.
public enum StripeSimulatorJSON: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)
    case array([StripeSimulatorJSON])
    case object([(String, StripeSimulatorJSON)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: StripeSimulatorJSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, StripeSimulatorJSON)...) { self = .object(elements) }

    /// A string, or null.
    public static func optional(_ value: String?) -> StripeSimulatorJSON { value.map { .string($0) } ?? .null }

    /// The member named `key` of an object.
    public subscript(key: String) -> StripeSimulatorJSON? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.0 == key }?.1
    }

    /// The string value, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// A copy of an object with `key` set (replaced in place, or appended).
    public func setting(_ key: String, _ value: StripeSimulatorJSON) -> StripeSimulatorJSON {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.0 == key }) {
            members[index].1 = value
        } else {
            members.append((key, value))
        }
        return .object(members)
    }

    public static func == (lhs: StripeSimulatorJSON, rhs: StripeSimulatorJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The serialised bytes: pretty-printed, keys sorted (a repeated key keeps its last value, as ``subscript(_:)``
    /// reads it), as Stripe writes its answers. JSONEncoder, not JSONSerialization: the same bytes for a card in a
    /// tenth of the time (45 µs against 454 µs here, release build), which was most of a simulated lookup's CPU
    /// and capped the cost benchmark's every path at the simulator (issue 49).
    public var data: Data { (try? Self.encoder.encode(self)) ?? Data() }

    /// The serialised text.
    public var text: String { String(decoding: data, as: UTF8.self) }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension StripeSimulatorJSON: Encodable {
    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let members):
            var container = encoder.container(keyedBy: MemberKey.self)
            let lastIndex = Dictionary(members.enumerated().map { ($1.0, $0) }, uniquingKeysWith: { _, last in last })
            for (index, member) in members.enumerated() where lastIndex[member.0] == index {
                try container.encode(member.1, forKey: MemberKey(stringValue: member.0))
            }
        }
    }
}
