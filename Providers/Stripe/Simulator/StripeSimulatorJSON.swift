import Foundation

/// A JSON value with ordered object keys, written the way Stripe writes its responses: pretty-printed with two
/// spaces, `id` and `object` first. Used for every body the simulator sends, and for the objects of
/// ``StripeSimulator/signedWebhook(type:object:previousAttributes:timestamp:secret:)``.
public enum StripeSimJSON: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)
    case array([StripeSimJSON])
    case object([(String, StripeSimJSON)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: StripeSimJSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, StripeSimJSON)...) { self = .object(elements) }

    /// A string, or null.
    public static func optional(_ value: String?) -> StripeSimJSON { value.map { .string($0) } ?? .null }

    /// The member named `key` of an object.
    public subscript(key: String) -> StripeSimJSON? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.0 == key }?.1
    }

    /// The string value, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// A copy of an object with `key` set (replaced in place, or appended).
    public func setting(_ key: String, _ value: StripeSimJSON) -> StripeSimJSON {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.0 == key }) {
            members[index].1 = value
        } else {
            members.append((key, value))
        }
        return .object(members)
    }

    public static func == (lhs: StripeSimJSON, rhs: StripeSimJSON) -> Bool {
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

    /// The serialised bytes (pretty-printed as Stripe does).
    public var data: Data { Data(text.utf8) }

    /// The serialised text.
    public var text: String {
        var output = ""
        write(to: &output, indent: 0)
        return output
    }

    private func write(to output: inout String, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            if values.isEmpty {
                output += "[]"
                return
            }
            output += "[\n"
            for (index, value) in values.enumerated() {
                output += String(repeating: " ", count: indent + 2)
                value.write(to: &output, indent: indent + 2)
                output += index == values.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "]"
        case .object(let members):
            if members.isEmpty {
                output += "{}"
                return
            }
            output += "{\n"
            for (index, member) in members.enumerated() {
                output += String(repeating: " ", count: indent + 2)
                Self.writeString(member.0, to: &output)
                output += ": "
                member.1.write(to: &output, indent: indent + 2)
                output += index == members.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case let control where control.value < 0x20:
                output += String(format: "\\u%04x", control.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
