import Foundation

/// A drop-in for a default-configured `JSONDecoder` that reads provider answers with far fewer allocations.
///
/// `JSONDecoder` builds a dictionary of every object's members and a coding-path array per level; for a 2.5 KB
/// card answer that is most of an adapter's allocations. This decoder validates the UTF-8 document in one pass,
/// recording a compact index of where each value lies, then serves the `Decoder` containers from that index:
/// a keyed lookup compares the key's UTF-8 bytes with the members' names, strings are made from the bytes only
/// when they are read, and a coding path is built only when someone asks for it.
///
/// Its answers are `JSONDecoder`'s by construction: whenever the document or a request is one it is not sure to
/// read exactly as `JSONDecoder` does (invalid JSON, a byte order mark, a repeated or escaped member name, a number
/// whose conversion is not exact, `Date`, `Data`, `URL` or `Decimal` asked for, nesting deeper than 256, any error
/// at all), ``decode(_:from:)`` decodes the document again with a shared `JSONDecoder` and returns, or throws,
/// what that gives. Errors are therefore always `JSONDecoder`'s own, with its coding paths.
public struct ResponseDecoder: Sendable {
    /// Makes a decoder. It has no options: it reads as `JSONDecoder()` does with its default strategies.
    public init() {}

    /// The reference every answer is `JSONDecoder`'s: made once, never configured.
    static let reference = JSONDecoder()

    /// Decodes `data` as `type`, as `JSONDecoder().decode(type, from: data)` would.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - data: the UTF-8 JSON document.
    /// - Returns: the decoded value.
    /// - Throws: `JSONDecoder`'s `DecodingError` when the document does not decode as `type`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let value = fastDecode(type, from: data) { return value }
        return try Self.reference.decode(type, from: data)
    }

    /// The value read without `JSONDecoder`, or nil when ``decode(_:from:)`` would fall back to it (the document or
    /// the request is one this reader is not sure of, or decoding threw). Internal, so that tests can hold the
    /// fast path to being taken.
    func fastDecode<T: Decodable>(_ type: T.Type, from data: Data) -> T? {
        guard data.count < Int(UInt32.max) else { return nil }
        if let result = data.withUnsafeBytes({ raw -> T?? in
            // `raw` stays valid only while this closure runs: the state reads it only until `finish()` below.
            raw.withMemoryRebound(to: UInt8.self) { bytes in Self.fastDecode(type, bytes: bytes) }
        }) {
            return result
        }
        return nil
    }

    /// Decodes from bytes that are valid while this runs. The state is told to stop reading them before returning,
    /// so a decoder a user type kept (for later) can never read freed memory: it finds the state finished and bails.
    static func fastDecode<T: Decodable>(_ type: T.Type, bytes: UnsafeBufferPointer<UInt8>) -> T? {
        guard let tape = ResponseDecoderScanner.scan(bytes) else { return nil }
        let state = ResponseDecodingState(bytes: bytes, tape: tape)
        defer { state.finish() }
        do {
            let value = try state.decodeValue(type, at: 0)
            return state.bailed ? nil : value
        } catch {
            return nil
        }
    }
}

// MARK: - The tape

/// One value of the document (or one member's name), in document order. A container is followed by its members
/// (an object's as name, value, name, value…) and `end` says where the entries after it start.
struct ResponseDecoderEntry {
    enum Kind: UInt8 { case object, array, string, key, number, `true`, `false`, null }

    var kind: Kind
    var flags: UInt8
    /// Byte offset: the first byte of a number, the first byte after a string's or name's opening quote, the
    /// bracket of a container.
    var start: UInt32
    /// Strings and names: the offset of the closing quote. Numbers: one past the last digit. Containers: the
    /// tape index after their last descendant.
    var end: UInt32
    /// Containers: how many members or elements.
    var count: UInt32
    /// The tape index of the name a member's value belongs to, or of the array an element is in; a name's parent is
    /// its object. `UInt32.max` for the document's value.
    var parent: UInt32

    static let escaped: UInt8 = 1
    static let nonASCII: UInt8 = 2
    /// A number with a fraction or an exponent.
    static let notInteger: UInt8 = 4
    static let negative: UInt8 = 8
    /// An object one of whose names is escaped or not ASCII.
    static let complexKey: UInt8 = 16

    static let root = UInt32.max

    var isContainer: Bool { kind == .object || kind == .array }
}

/// The validating pass: strict RFC 8259 over UTF-8 (stricter than `JSONDecoder` where unsure: a document it refuses
/// simply goes to `JSONDecoder`). Never recurses deeper than 256.
struct ResponseDecoderScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var tape: [ResponseDecoderEntry]

    static let maximumDepth = 256

    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> [ResponseDecoderEntry]? {
        var scanner = ResponseDecoderScanner(bytes: bytes, tape: [])
        // Every entry takes some bytes of the document: a compact Stripe card answer about 11 each (236 entries in
        // 2.5 KB), pretty-printed answers more. A sixth of the byte count is not regrown for such answers; denser
        // documents (long arrays of small numbers) just regrow.
        scanner.tape.reserveCapacity(bytes.count / 6 + 16)
        guard scanner.value(parent: ResponseDecoderEntry.root, depth: 0) else { return nil }
        scanner.skipWhitespace()
        guard scanner.position == bytes.count else { return nil }
        return scanner.tape
    }

    /// Inlined where a token may follow whitespace: most often none does, which costs one test.
    @inline(__always)
    mutating func skipWhitespace() {
        if position < bytes.count && Self.isWhitespace(bytes[position]) { skipWhitespaceRun() }
    }

    /// At whitespace: passes it. A single byte (the space after a name's colon) is passed by itself; a longer run (a
    /// pretty-printed document's line break and indentation) eight bytes at a time.
    mutating func skipWhitespaceRun() {
        guard let base = bytes.baseAddress else { return }
        position += 1
        guard position < bytes.count && Self.isWhitespace(base[position]) else { return }
        while position + 8 <= bytes.count {
            let others = ASCIILanes.jsonNonWhitespace(ASCIILanes.load(base, at: position))
            if others != 0 {
                position += others.trailingZeroBitCount >> 3
                return
            }
            position += 8
        }
        while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    mutating func append(_ kind: ResponseDecoderEntry.Kind, flags: UInt8 = 0, start: Int, end: Int, parent: UInt32) {
        tape.append(ResponseDecoderEntry(kind: kind, flags: flags, start: UInt32(start), end: UInt32(end), count: 0, parent: parent))
    }

    mutating func value(parent: UInt32, depth: Int) -> Bool {
        guard depth < Self.maximumDepth else { return false }
        skipWhitespace()
        guard position < bytes.count else { return false }
        let start = position
        switch bytes[position] {
        case UInt8(ascii: "{"): return object(parent: parent, depth: depth)
        case UInt8(ascii: "["): return array(parent: parent, depth: depth)
        case UInt8(ascii: "\""):
            guard let (end, flags) = string() else { return false }
            append(.string, flags: flags, start: start + 1, end: end, parent: parent)
            return true
        case UInt8(ascii: "t"):
            guard literal("true") else { return false }
            append(.true, start: start, end: position, parent: parent)
            return true
        case UInt8(ascii: "f"):
            guard literal("false") else { return false }
            append(.false, start: start, end: position, parent: parent)
            return true
        case UInt8(ascii: "n"):
            guard literal("null") else { return false }
            append(.null, start: start, end: position, parent: parent)
            return true
        default:
            guard let flags = number() else { return false }
            append(.number, flags: flags, start: start, end: position, parent: parent)
            return true
        }
    }

    /// `true`, `false` or `null` at `position`: the first four bytes compared at once (both loads in the machine's
    /// order), then `false`'s fifth. `text.utf8Start` points at the literal's `utf8CodeUnitCount` bytes (at least
    /// four), which are all that is read of it.
    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard count >= 4, position + count <= bytes.count, let base = bytes.baseAddress else { return false }
        let expected = UnsafeRawPointer(text.utf8Start).loadUnaligned(as: UInt32.self)
        guard UnsafeRawPointer(base + position).loadUnaligned(as: UInt32.self) == expected else { return false }
        for offset in 4..<count where base[position + offset] != text.utf8Start[offset] { return false }
        position += count
        return true
    }

    mutating func object(parent: UInt32, depth: Int) -> Bool {
        let index = tape.count
        append(.object, start: position, end: 0, parent: parent)
        position += 1  // {
        var count: UInt32 = 0
        var flags: UInt8 = 0
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return false }
                let keyStart = position + 1
                guard let (keyEnd, keyFlags) = string() else { return false }
                if keyFlags != 0 { flags |= ResponseDecoderEntry.complexKey }
                let keyIndex = UInt32(tape.count)
                append(.key, flags: keyFlags, start: keyStart, end: keyEnd, parent: UInt32(index))
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return false }
                position += 1
                guard value(parent: keyIndex, depth: depth + 1) else { return false }
                count += 1
                guard let another = separator(closing: UInt8(ascii: "}")) else { return false }
                if another { continue }
                break
            }
        }
        tape[index].end = UInt32(tape.count)
        tape[index].count = count
        tape[index].flags = flags
        return true
    }

    /// After a member or an element: true at a comma (another follows), false at the closing bracket (both
    /// consumed), nil at anything else.
    mutating func separator(closing: UInt8) -> Bool? {
        skipWhitespace()
        guard position < bytes.count else { return nil }
        if bytes[position] == UInt8(ascii: ",") {
            position += 1
            return true
        }
        guard bytes[position] == closing else { return nil }
        position += 1
        return false
    }

    mutating func array(parent: UInt32, depth: Int) -> Bool {
        let index = tape.count
        append(.array, start: position, end: 0, parent: parent)
        position += 1  // [
        var count: UInt32 = 0
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                guard value(parent: UInt32(index), depth: depth + 1) else { return false }
                count += 1
                guard let another = separator(closing: UInt8(ascii: "]")) else { return false }
                if another { continue }
                break
            }
        }
        tape[index].end = UInt32(tape.count)
        tape[index].count = count
        return true
    }

    /// At the opening quote: the offset of the closing quote and the string's flags, or nil when it is not a valid
    /// string (a control character, an unknown escape, a `\u` without four hex digits, invalid UTF-8).
    mutating func string() -> (Int, UInt8)? {
        guard let base = bytes.baseAddress else { return nil }
        position += 1  // "
        let start = position
        var flags: UInt8 = 0
        while position < bytes.count {
            // Eight bytes that need no look (no quote, backslash, control character or non-ASCII byte) at once, else
            // straight to the first that does.
            if position + 8 <= bytes.count {
                let specials = ASCIILanes.jsonStringSpecials(ASCIILanes.load(base, at: position))
                if specials == 0 {
                    position += 8
                    continue
                }
                position += specials.trailingZeroBitCount >> 3
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { return nil }
            if byte >= 0x80 {
                flags |= ResponseDecoderEntry.nonASCII
            } else if byte == UInt8(ascii: "\\") {
                flags |= ResponseDecoderEntry.escaped
                guard position + 1 < bytes.count else { return nil }
                switch bytes[position + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 2
                case UInt8(ascii: "u"):
                    guard position + 6 <= bytes.count else { return nil }
                    for offset in 2..<6 where ResponseDecodingState.hexDigit(bytes[position + offset]) == nil { return nil }
                    position += 6
                default:
                    return nil
                }
                continue
            }
            position += 1
        }
        guard position < bytes.count else { return nil }
        let end = position
        position += 1  // "
        if flags & ResponseDecoderEntry.nonASCII != 0 {
            // Escapes are ASCII, so the raw bytes are valid UTF-8 exactly when the string's characters are.
            var iterator = UnsafeBufferPointer(rebasing: bytes[start..<end]).makeIterator()
            var parser = Unicode.UTF8.ForwardParser()
            loop: while true {
                switch parser.parseScalar(from: &iterator) {
                case .valid: continue
                case .emptyInput: break loop
                case .error: return nil
                }
            }
        }
        return (end, flags)
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: its flags, or nil when it is not a number.
    mutating func number() -> UInt8? {
        var flags: UInt8 = 0
        func digits() -> Int {
            let first = position
            while position < bytes.count && bytes[position] >= UInt8(ascii: "0") && bytes[position] <= UInt8(ascii: "9") { position += 1 }
            return position - first
        }
        if position < bytes.count && bytes[position] == UInt8(ascii: "-") {
            flags |= ResponseDecoderEntry.negative
            position += 1
        }
        guard position < bytes.count else { return nil }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            guard digits() > 0 else { return nil }
        }
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            flags |= ResponseDecoderEntry.notInteger
            position += 1
            guard digits() > 0 else { return nil }
        }
        if position < bytes.count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
            flags |= ResponseDecoderEntry.notInteger
            position += 1
            if position < bytes.count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")) { position += 1 }
            guard digits() > 0 else { return nil }
        }
        return flags
    }
}

// MARK: - Decoding state

/// Thrown by the fast path when it gives up (with `bailed` set): never seen outside ``ResponseDecoder``.
struct ResponseDecoderBail: Error {}

/// A coding key of a path built from the document: a member's name, or an array position ("Index 3"), as
/// `JSONDecoder`'s own keys are.
struct ResponseDecoderKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

/// The document's bytes and tape, shared by every decoder and container of one `decode` call, and whether the
/// fast path gave up.
final class ResponseDecodingState {
    /// Valid only until `finish()`, which `ResponseDecoder.fastDecode` calls before the bytes go away.
    private var bytes: UnsafeBufferPointer<UInt8>
    let tape: [ResponseDecoderEntry]
    private(set) var bailed = false

    init(bytes: UnsafeBufferPointer<UInt8>, tape: [ResponseDecoderEntry]) {
        self.bytes = bytes
        self.tape = tape
    }

    /// Stops every later read of the bytes: a decoder kept past `decode` finds nothing to read and bails.
    func finish() {
        bytes = UnsafeBufferPointer(start: nil, count: 0)
        bailed = true
    }

    /// Gives up: `decode` will use `JSONDecoder`'s answer, whatever user code does with the error.
    func bail() -> ResponseDecoderBail {
        bailed = true
        return ResponseDecoderBail()
    }

    /// The entry at `index`; bails once the bytes are gone (a decoder used after `decode` returned).
    func entry(_ index: Int) throws -> ResponseDecoderEntry {
        guard bytes.baseAddress != nil, index < tape.count else { throw bail() }
        return tape[index]
    }

    /// The tape index after the value at `index` and its descendants.
    func next(after index: Int) -> Int {
        let entry = tape[index]
        return entry.isContainer ? Int(entry.end) : index + 1
    }

    static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    // MARK: Coding paths

    /// The coding path of the value at `index`, built from the tape (only when asked for).
    func codingPath(to index: Int) -> [any CodingKey] {
        guard bytes.baseAddress != nil, index < tape.count else { return [] }
        var keys: [any CodingKey] = []
        var current = index
        while tape[current].parent != ResponseDecoderEntry.root {
            let parent = Int(tape[current].parent)
            if tape[parent].kind == .key {
                keys.append(ResponseDecoderKey(stringValue: (try? keyString(parent)) ?? ""))
                current = Int(tape[parent].parent)
            } else {
                var position = 0
                var element = parent + 1
                while element < current {
                    element = next(after: element)
                    position += 1
                }
                keys.append(ResponseDecoderKey(intValue: position))
                current = parent
            }
        }
        return keys.reversed()
    }

    func codingPath(to index: Int, appending key: any CodingKey) -> [any CodingKey] {
        codingPath(to: index) + [key]
    }

    // MARK: Errors (a coding path, never a value)

    func typeMismatch(_ type: Any.Type, at index: Int) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(codingPath: codingPath(to: index), debugDescription: "Expected to decode \(type) but found another type."))
    }

    func valueNotFound(_ type: Any.Type, at index: Int) -> DecodingError {
        DecodingError.valueNotFound(type, DecodingError.Context(codingPath: codingPath(to: index), debugDescription: "Expected \(type) value but found null instead."))
    }

    // MARK: Values

    func isNull(_ index: Int) throws -> Bool { try entry(index).kind == .null }

    func bool(_ index: Int) throws -> Bool {
        switch try entry(index).kind {
        case .true: return true
        case .false: return false
        case .null: throw valueNotFound(Bool.self, at: index)
        default: throw typeMismatch(Bool.self, at: index)
        }
    }

    /// The string's bytes: the bytes are valid (not finished) whenever `entry` succeeded, and `start..<end` lies
    /// within them (the scanner recorded offsets it read).
    private func raw(_ entry: ResponseDecoderEntry) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[Int(entry.start)..<Int(entry.end)])
    }

    func string(_ index: Int) throws -> String {
        let entry = try entry(index)
        switch entry.kind {
        case .string: return try text(entry)
        case .null: throw valueNotFound(String.self, at: index)
        default: throw typeMismatch(String.self, at: index)
        }
    }

    /// A member's name as a String (for `allKeys` and coding paths).
    func keyString(_ index: Int) throws -> String { try text(try entry(index)) }

    /// A string's or name's text: the validated bytes as they are, or unescaped.
    private func text(_ entry: ResponseDecoderEntry) throws -> String {
        let raw = raw(entry)
        guard entry.flags & ResponseDecoderEntry.escaped != 0 else {
            // Validated as UTF-8 by the scanner, so nothing is repaired.
            return String(decoding: raw, as: UTF8.self)
        }
        // Unescaping never lengthens the text: every escape is at least as long as the UTF-8 it stands for.
        var failed = false
        let result = String(unsafeUninitializedCapacity: raw.count) { output -> Int in
            var written = 0
            var index = 0
            // Every write is at `written`, which stays at most `index` (the read position), itself within `raw`.
            func put(_ byte: UInt8) {
                output[written] = byte
                written += 1
            }
            func hex4(_ at: Int) -> UInt32? {
                guard at + 4 <= raw.count else { return nil }
                var value: UInt32 = 0
                for offset in 0..<4 {
                    guard let digit = Self.hexDigit(raw[at + offset]) else { return nil }
                    value = value << 4 | digit
                }
                return value
            }
            while index < raw.count {
                let byte = raw[index]
                guard byte == UInt8(ascii: "\\") else {
                    put(byte)
                    index += 1
                    continue
                }
                let escape = raw[index + 1]  // the scanner checked every escape is complete
                index += 2
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): put(escape)
                case UInt8(ascii: "b"): put(0x08)
                case UInt8(ascii: "f"): put(0x0C)
                case UInt8(ascii: "n"): put(0x0A)
                case UInt8(ascii: "r"): put(0x0D)
                case UInt8(ascii: "t"): put(0x09)
                default:  // u
                    guard let unit = hex4(index) else {
                        failed = true
                        return 0
                    }
                    index += 4
                    var value = unit
                    if (0xD800...0xDBFF).contains(unit) {
                        // Only a pair of escaped surrogates is read here; anything else is left to JSONDecoder.
                        guard index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"), raw[index + 1] == UInt8(ascii: "u"),
                            let low = hex4(index + 2), (0xDC00...0xDFFF).contains(low)
                        else {
                            failed = true
                            return 0
                        }
                        index += 6
                        value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(unit) {
                        failed = true
                        return 0
                    }
                    guard let scalar = Unicode.Scalar(value) else {
                        failed = true
                        return 0
                    }
                    // At most 4 bytes for the at least 6 read.
                    for byte in UTF8.encode(scalar)! { put(byte) }
                }
            }
            return written
        }
        if failed { throw bail() }
        return result
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type, _ index: Int) throws -> T {
        let entry = try entry(index)
        switch entry.kind {
        case .number: break
        case .null: throw valueNotFound(type, at: index)
        default: throw typeMismatch(type, at: index)
        }
        // A fraction, an exponent or -0: JSONDecoder's own conversions decide.
        guard entry.flags & ResponseDecoderEntry.notInteger == 0 else { throw bail() }
        let negative = entry.flags & ResponseDecoderEntry.negative != 0
        var magnitude: UInt64 = 0
        let digits = raw(entry)
        for byte in digits.dropFirst(negative ? 1 : 0) {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw bail() }
            magnitude = sum
        }
        if negative {
            guard magnitude != 0, magnitude <= UInt64(Int64.max) + 1 else { throw bail() }
            let value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
            guard let result = T(exactly: value) else { throw bail() }
            return result
        }
        guard let result = T(exactly: magnitude) else { throw bail() }
        return result
    }

    func double(_ index: Int) throws -> Double {
        let entry = try entry(index)
        switch entry.kind {
        case .number: break
        case .null: throw valueNotFound(Double.self, at: index)
        default: throw typeMismatch(Double.self, at: index)
        }
        let digits = raw(entry)
        let negative = entry.flags & ResponseDecoderEntry.negative != 0
        // Up to 15 digits, an integer is exact in an Int64 and in a Double: no text to parse. (Not -0.)
        if entry.flags & ResponseDecoderEntry.notInteger == 0, digits.count <= 15 {
            var magnitude: Int64 = 0
            for byte in digits.dropFirst(negative ? 1 : 0) { magnitude = magnitude * 10 + Int64(byte - UInt8(ascii: "0")) }
            if magnitude != 0 || !negative { return Double(negative ? -magnitude : magnitude) }
        }
        // Correctly rounded, as JSONDecoder's strtod is; short numbers make no allocation (small strings). What
        // overflows, underflows to 0 (JSONDecoder refuses "1e-400") or is subnormal is left to JSONDecoder.
        guard let value = Double(String(decoding: digits, as: UTF8.self)), value.isFinite, value == 0 || value.isNormal else { throw bail() }
        if value == 0 {
            for byte in digits {
                if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
                if byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9") { throw bail() }
            }
        }
        return value
    }

    func float(_ index: Int) throws -> Float {
        switch try entry(index).kind {
        case .number: break
        case .null: throw valueNotFound(Float.self, at: index)
        default: throw typeMismatch(Float.self, at: index)
        }
        // Only a Float that is exactly the Double read is sure to be what JSONDecoder's own parse gives.
        guard let result = Float(exactly: try double(index)) else { throw bail() }
        return result
    }

    /// Types JSONDecoder reads its own way (strategies, special forms): always left to it.
    func isSpecial<T>(_ type: T.Type) -> Bool {
        type == Date.self || type == Data.self || type == URL.self || type == Decimal.self || type == Int128.self || type == UInt128.self
    }

    func decodeValue<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        guard !isSpecial(type) else { throw bail() }
        let entry = try entry(index)
        // An array (of any element type) is filled at its final size; anything else through `init(from:)`.
        if entry.kind == .array, let arrayType = type as? any ResponseDecodableArray.Type {
            return try arrayType.decodeElements(from: ResponseUnkeyedContainer(state: self, array: index, count: Int(entry.count))) as! T
        }
        return try T(from: ResponseDecoderImpl(state: self, index: index))
    }

    // MARK: Objects

    /// The tape index of `key`'s value in the object at `object`, or nil when absent. Bails (returning nil) when the
    /// lookup could differ from a dictionary's: a repeated name, or a key that is not ASCII (String equality is
    /// canonical equivalence, which bytes alone do not decide). Names with escapes or non-ASCII bytes were refused
    /// when the container was made.
    func find(_ key: String, in object: Int) -> Int? {
        guard let objectEntry = try? entry(object) else { return nil }
        var key = key
        return key.withUTF8 { wanted -> Int? in
            for byte in wanted where byte >= 0x80 {
                _ = bail()
                return nil
            }
            var found: Int? = nil
            var member = object + 1
            let end = Int(objectEntry.end)
            while member < end {
                let name = tape[member]
                let length = Int(name.end - name.start)
                if length == wanted.count {
                    // Both ranges are in bounds: the name's recorded by the scanner within `bytes` (valid: `entry`
                    // succeeded), `wanted` is the key's own UTF-8 for this closure. Zero length compares nothing.
                    let same = length == 0 || memcmp(bytes.baseAddress! + Int(name.start), wanted.baseAddress!, length) == 0
                    if same {
                        guard found == nil else {
                            _ = bail()
                            return nil
                        }
                        found = member + 1
                    }
                }
                member = next(after: member + 1)
            }
            return found
        }
    }

    /// The names of the object's members, in document order; bails on a repeated name.
    func keys(of object: Int) throws -> [String] {
        let objectEntry = try entry(object)
        var names: [String] = []
        names.reserveCapacity(Int(objectEntry.count))
        var member = object + 1
        while member < Int(objectEntry.end) {
            names.append(try keyString(member))
            member = next(after: member + 1)
        }
        if Set(names).count != names.count { throw bail() }
        return names
    }
}

// MARK: - Decoder and containers

/// The `Decoder` at one value of the tape: two words, so an `any Decoder` holds it without allocating.
struct ResponseDecoderImpl: Decoder {
    let state: ResponseDecodingState
    let index: Int

    var codingPath: [any CodingKey] { state.codingPath(to: index) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let entry = try state.entry(index)
        switch entry.kind {
        case .object:
            guard entry.flags & ResponseDecoderEntry.complexKey == 0 else { throw state.bail() }
            return KeyedDecodingContainer(ResponseKeyedContainer<Key>(state: state, object: index))
        case .null: throw state.valueNotFound([String: Any].self, at: index)
        default: throw state.typeMismatch([String: Any].self, at: index)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let entry = try state.entry(index)
        switch entry.kind {
        case .array: return ResponseUnkeyedContainer(state: state, array: index, count: Int(entry.count))
        case .null: throw state.valueNotFound([Any].self, at: index)
        default: throw state.typeMismatch([Any].self, at: index)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        _ = try state.entry(index)
        return ResponseSingleValueContainer(state: state, index: index)
    }
}

struct ResponseKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let state: ResponseDecodingState
    let object: Int

    var codingPath: [any CodingKey] { state.codingPath(to: object) }

    var allKeys: [Key] {
        guard let names = try? state.keys(of: object) else { return [] }
        return names.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool { state.find(key.stringValue, in: object) != nil }

    /// The value's tape index, or `keyNotFound` (a sure answer unless the lookup bailed).
    private func value(_ key: Key) throws -> Int {
        if let index = state.find(key.stringValue, in: object) { return index }
        if state.bailed { throw ResponseDecoderBail() }
        throw DecodingError.keyNotFound(
            key, DecodingError.Context(codingPath: state.codingPath(to: object), debugDescription: "No value associated with key \(key.stringValue).")
        )
    }

    /// nil when the key is absent or null, else the value's index.
    private func present(_ key: Key) throws -> Int? {
        guard let index = state.find(key.stringValue, in: object) else {
            if state.bailed { throw ResponseDecoderBail() }
            return nil
        }
        return try state.isNull(index) ? nil : index
    }

    /// `read` of the key's value, or nil when it is absent or null. Not `Optional.map`, which for a generic member type
    /// was an unspecialised call per member; this one is inlined into each `decodeIfPresent`.
    @inline(__always)
    private func ifPresent<T>(_ key: Key, _ read: (Int) throws -> T) throws -> T? {
        guard let index = try present(key) else { return nil }
        return try read(index)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try state.isNull(try value(key)) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try state.bool(try value(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try state.string(try value(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try state.double(try value(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try state.float(try value(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try state.integer(type, try value(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try state.integer(type, try value(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try state.integer(type, try value(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try state.integer(type, try value(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try state.integer(type, try value(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try state.integer(type, try value(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try state.integer(type, try value(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try state.integer(type, try value(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try state.integer(type, try value(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try state.integer(type, try value(key)) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { throw state.bail() }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { throw state.bail() }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try state.decodeValue(type, at: try value(key)) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try ifPresent(key) { try state.bool($0) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try ifPresent(key) { try state.string($0) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try ifPresent(key) { try state.double($0) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try ifPresent(key) { try state.float($0) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try ifPresent(key) { try state.integer(type, $0) } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try ifPresent(key) { try state.integer(type, $0) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try ifPresent(key) { try state.integer(type, $0) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try ifPresent(key) { try state.integer(type, $0) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try ifPresent(key) { try state.integer(type, $0) } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try ifPresent(key) { try state.integer(type, $0) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try ifPresent(key) { try state.integer(type, $0) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try ifPresent(key) { try state.integer(type, $0) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try ifPresent(key) { try state.integer(type, $0) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try ifPresent(key) { try state.integer(type, $0) } }
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { throw state.bail() }
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { throw state.bail() }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try ifPresent(key) { try state.decodeValue(type, at: $0) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ResponseDecoderImpl(state: state, index: try value(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ResponseDecoderImpl(state: state, index: try value(key)).unkeyedContainer()
    }

    /// JSONDecoder's decoder for an absent member is its own business: left to it.
    func superDecoder() throws -> any Decoder {
        guard let index = state.find("super", in: object) else { throw state.bail() }
        return ResponseDecoderImpl(state: state, index: index)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        guard let index = state.find(key.stringValue, in: object) else { throw state.bail() }
        return ResponseDecoderImpl(state: state, index: index)
    }
}

/// What the standard library's `Array.init(from:)` does (decode each element of the unkeyed container in turn, in
/// order), with the array made at its final size first instead of growing by doubling as elements are appended: for
/// an answer's lists of objects, one allocation instead of three or four.
protocol ResponseDecodableArray {
    static func decodeElements(from container: ResponseUnkeyedContainer) throws -> Self
}

extension Array: ResponseDecodableArray where Element: Decodable {
    static func decodeElements(from container: ResponseUnkeyedContainer) throws -> [Element] {
        var container = container
        var elements: [Element] = []
        elements.reserveCapacity(container.count ?? 0)
        while !container.isAtEnd { elements.append(try container.decode(Element.self)) }
        return elements
    }
}

struct ResponseUnkeyedContainer: UnkeyedDecodingContainer {
    let state: ResponseDecodingState
    let array: Int
    /// The tape index of the current element.
    private var position: Int
    private(set) var currentIndex = 0
    private let total: Int

    init(state: ResponseDecodingState, array: Int, count: Int) {
        self.state = state
        self.array = array
        self.position = array + 1
        self.total = count
    }

    var count: Int? { total }
    var isAtEnd: Bool { currentIndex >= total }
    var codingPath: [any CodingKey] { state.codingPath(to: array) }

    /// The current element's index, or `valueNotFound` past the end (as JSONDecoder).
    private func current(_ type: Any.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: state.codingPath(to: array, appending: ResponseDecoderKey(intValue: currentIndex)), debugDescription: "Unkeyed container is at end."
                )
            )
        }
        _ = try state.entry(position)
        return position
    }

    private mutating func advance() {
        position = state.next(after: position)
        currentIndex += 1
    }

    /// Decodes the current element with `read`, moving on only when it succeeds (as JSONDecoder does).
    private mutating func take<T>(_ type: T.Type, _ read: (Int) throws -> T) throws -> T {
        let value = try read(try current(type))
        advance()
        return value
    }

    /// Past the end, JSONDecoder's answer is left to it.
    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw state.bail() }
        guard try state.isNull(try current(Any?.self)) else { return false }
        advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try take(type) { [state] in try state.bool($0) } }
    mutating func decode(_ type: String.Type) throws -> String { try take(type) { [state] in try state.string($0) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try take(type) { [state] in try state.double($0) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try take(type) { [state] in try state.float($0) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try take(type) { [state] in try state.integer(type, $0) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try take(type) { [state] in try state.integer(type, $0) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try take(type) { [state] in try state.integer(type, $0) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try take(type) { [state] in try state.integer(type, $0) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try take(type) { [state] in try state.integer(type, $0) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try take(type) { [state] in try state.integer(type, $0) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try take(type) { [state] in try state.integer(type, $0) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try take(type) { [state] in try state.integer(type, $0) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try take(type) { [state] in try state.integer(type, $0) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try take(type) { [state] in try state.integer(type, $0) } }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { throw state.bail() }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { throw state.bail() }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try take(type) { [state] in try state.decodeValue(type, at: $0) } }

    mutating func decodeIfPresent(_ type: Int128.Type) throws -> Int128? { throw state.bail() }
    mutating func decodeIfPresent(_ type: UInt128.Type) throws -> UInt128? { throw state.bail() }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try take(KeyedDecodingContainer<NestedKey>.self) { [state] in try ResponseDecoderImpl(state: state, index: $0).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try take((any UnkeyedDecodingContainer).self) { [state] in try ResponseDecoderImpl(state: state, index: $0).unkeyedContainer() }
    }

    /// Past the end, JSONDecoder's answer is its own business: left to it.
    mutating func superDecoder() throws -> any Decoder {
        guard !isAtEnd else { throw state.bail() }
        return try take((any Decoder).self) { [state] in ResponseDecoderImpl(state: state, index: $0) }
    }
}

/// Two words, so an `any SingleValueDecodingContainer` holds it without allocating.
struct ResponseSingleValueContainer: SingleValueDecodingContainer {
    let state: ResponseDecodingState
    let index: Int

    var codingPath: [any CodingKey] { state.codingPath(to: index) }

    func decodeNil() -> Bool { (try? state.isNull(index)) ?? false }
    func decode(_ type: Bool.Type) throws -> Bool { try state.bool(index) }
    func decode(_ type: String.Type) throws -> String { try state.string(index) }
    func decode(_ type: Double.Type) throws -> Double { try state.double(index) }
    func decode(_ type: Float.Type) throws -> Float { try state.float(index) }
    func decode(_ type: Int.Type) throws -> Int { try state.integer(type, index) }
    func decode(_ type: Int8.Type) throws -> Int8 { try state.integer(type, index) }
    func decode(_ type: Int16.Type) throws -> Int16 { try state.integer(type, index) }
    func decode(_ type: Int32.Type) throws -> Int32 { try state.integer(type, index) }
    func decode(_ type: Int64.Type) throws -> Int64 { try state.integer(type, index) }
    func decode(_ type: UInt.Type) throws -> UInt { try state.integer(type, index) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try state.integer(type, index) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try state.integer(type, index) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try state.integer(type, index) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try state.integer(type, index) }
    func decode(_ type: Int128.Type) throws -> Int128 { throw state.bail() }
    func decode(_ type: UInt128.Type) throws -> UInt128 { throw state.bail() }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try state.decodeValue(type, at: index) }
}
