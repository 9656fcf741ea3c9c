import Foundation

/// A strict RFC 8259 reader of UTF-8 JSON into ``JSONValue``, for configuration documents.
///
/// `JSONDecoder` with `JSONValue.init(from:)` tries each JSON type in turn and
/// throws (and builds a `DecodingError`) for every wrong guess: most of a 10 000-route document's load time. This
/// reader produces the same values in one pass. Anything it does not accept (invalid JSON, but also UTF-16/32
/// documents or any construct it is not sure to read exactly as `JSONDecoder` does) goes to `JSONDecoder`, so
/// what loads and what is refused, and why, is unchanged (ConfigurationJSONTests compares the two).
enum ConfigurationJSON {
    static func parse(_ data: Data) throws -> JSONValue {
        if let value = data.withContiguousStorageIfAvailable({ read($0) }) ?? Array(data).withUnsafeBufferPointer({ read($0) }) {
            return value
        }
        return try JSONValue.decodedByFoundation(data)
    }

    /// The document's value, or nil when this reader does not accept it. The buffer is only read, within bounds, while
    /// the closure that received it runs.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        var reader = Reader(bytes: bytes)
        // A UTF-8 byte order mark is left to JSONDecoder (as are UTF-16 and UTF-32 documents).
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipWhitespace()
        return reader.position == bytes.count ? value : nil
    }

    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        /// Deeper documents go to JSONDecoder (which has its own limit), so this reader never recurses without bound.
        static let maximumDepth = 256

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) -> JSONValue? {
            guard depth < Self.maximumDepth else { return nil }
            skipWhitespace()
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return number()
            }
        }

        /// `utf8Start` points at the literal's `utf8CodeUnitCount` bytes, which are all that is read.
        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] { return false }
            position += count
            return true
        }

        mutating func object(depth: Int) -> JSONValue? {
            position += 1  // {
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if position < bytes.count && bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                guard let member = value(depth: depth + 1) else { return nil }
                // A repeated key: left to JSONDecoder, whose answer is the reference.
                guard members.updateValue(member, forKey: key) == nil else { return nil }
                skipWhitespace()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "}") else { return nil }
                position += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) -> JSONValue? {
            position += 1  // [
            var elements: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipWhitespace()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "]") else { return nil }
                position += 1
                return .array(elements)
            }
        }

        /// A string without escapes is taken as it is (after UTF-8 validation); one with escapes is decoded here.
        mutating func string() -> String? {
            position += 1  // "
            let start = position
            var escaped = false
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") { break }
                if byte < 0x20 { return nil }
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                    position += 2
                    continue
                }
                position += 1
            }
            guard position < bytes.count else { return nil }
            let raw = UnsafeBufferPointer(rebasing: bytes[start..<position])
            position += 1  // "
            guard escaped else { return String(validating: raw, as: UTF8.self) }
            return unescape(raw)
        }

        func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
            var output: [UInt8] = []
            output.reserveCapacity(raw.count)
            var index = 0
            func hex4(_ at: Int) -> UInt32? {
                guard at + 4 <= raw.count else { return nil }
                var value: UInt32 = 0
                for offset in 0..<4 {
                    let byte = raw[at + offset]
                    let digit: UInt8
                    switch byte {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                    default: return nil
                    }
                    value = value << 4 | UInt32(digit)
                }
                return value
            }
            while index < raw.count {
                let byte = raw[index]
                guard byte == UInt8(ascii: "\\") else {
                    output.append(byte)
                    index += 1
                    continue
                }
                guard index + 1 < raw.count else { return nil }
                let escape = raw[index + 1]
                index += 2
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escape)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    guard let unit = hex4(index) else { return nil }
                    index += 4
                    var scalarValue = unit
                    if (0xD800...0xDBFF).contains(unit) {
                        // A high surrogate must be followed by an escaped low one; anything else goes to JSONDecoder.
                        guard index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"), raw[index + 1] == UInt8(ascii: "u"),
                            let low = hex4(index + 2), (0xDC00...0xDFFF).contains(low)
                        else { return nil }
                        index += 6
                        scalarValue = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(unit) {
                        return nil
                    }
                    guard let scalar = Unicode.Scalar(scalarValue) else { return nil }
                    output.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            }
            return String(validating: output, as: UTF8.self)
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as a finite Double.
        mutating func number() -> JSONValue? {
            let start = position
            func digits() -> Int {
                let first = position
                while position < bytes.count && bytes[position] >= UInt8(ascii: "0") && bytes[position] <= UInt8(ascii: "9") { position += 1 }
                return position - first
            }
            if position < bytes.count && bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
            } else {
                guard digits() > 0 else { return nil }
            }
            if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard digits() > 0 else { return nil }
            }
            if position < bytes.count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
                position += 1
                if position < bytes.count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")) { position += 1 }
                guard digits() > 0 else { return nil }
            }
            guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self),
                let value = Double(text), value.isFinite
            else { return nil }
            return .number(value)
        }
    }
}
