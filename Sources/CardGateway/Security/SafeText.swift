import Foundation

/// Scrubs text that came from outside (a provider's error message, a field name) before it goes into an
/// error description or a log line: anything that looks like a card number, a key or a token is masked.
public enum SafeText: Sendable {
    private static let redacted = Array("<redacted>".unicodeScalars)
    private static let secretPrefixes = ["sk_", "rk_", "pk_live", "whsec_", "ek_", "eyJ", "Bearer", "Basic"].map { Array($0.unicodeScalars) }
    /// Card numbers are masked from this many digits on.
    static let cardNumberDigits = 12
    /// Opaque words (Base64 payloads, hex certificates, keys) are redacted from this length on.
    static let opaqueWordLength = 40

    /// The text with card numbers (12 or more digits, also when grouped by single spaces or dashes), key- and
    /// JWT-shaped words and long opaque blobs masked, then cut to `maxLength`. The whole text is examined
    /// before it is cut, so a secret straddling the cut is still found.
    public static func scrub(_ text: String, maxLength: Int = 300) -> String {
        // ASCII text (nearly every provider message) takes a byte-level path with the same rules; anything else
        // goes through the Unicode scalar path. Both are checked against each other in SafeTextEquivalenceTests. The
        // buffer pointer is the string's own UTF-8 storage, only read, within bounds, and only inside the closure.
        switch text.utf8.withContiguousStorageIfAvailable({ scrubASCII($0, maxLength: maxLength) }) {
        case .unchanged?: return text
        case .scrubbed(let scrubbed)?: return scrubbed
        case .notASCII?, nil: return scrubScalars(text, maxLength: maxLength)
        }
    }

    /// What the ASCII path made of a text.
    enum ASCIIScrub: Equatable {
        /// Nothing to mask or cut: the text itself is the answer (nothing allocated).
        case unchanged
        case scrubbed(String)
        /// A byte is not ASCII: the scalar path decides.
        case notASCII
    }

    /// ``scrub(_:maxLength:)`` over ASCII bytes (one byte per scalar, so counts and cuts are the same).
    ///
    /// A first pass only reads: most texts (field names, codes, ordinary messages) have nothing to mask and fit, and
    /// are answered `unchanged`. Otherwise a second pass writes the new string's storage directly (one allocation):
    /// the text word by word with sensitive words replaced, then its card numbers masked in place, then the cut.
    static func scrubASCII(_ bytes: UnsafeBufferPointer<UInt8>, maxLength: Int) -> ASCIIScrub {
        // The sensitive words' byte ranges go to space on the stack (an array only past `inlineCapacity` of them).
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: SensitiveRanges.inlineCapacity) { inline in
            var sensitive = SensitiveRanges(inline: inline)
            return scrubASCII(bytes, maxLength: maxLength, sensitive: &sensitive)
        }
    }

    /// Byte ranges kept in a caller's stack buffer, then in an array once it is full. `Range<Int>` is a trivial type,
    /// so the buffer's slots need no deinitialization: each is initialized once before it is read.
    struct SensitiveRanges {
        static let inlineCapacity = 8
        let inline: UnsafeMutableBufferPointer<Range<Int>>
        private(set) var inlineCount = 0
        private(set) var overflow: [Range<Int>] = []

        init(inline: UnsafeMutableBufferPointer<Range<Int>>) { self.inline = inline }

        var count: Int { inlineCount + overflow.count }
        var isEmpty: Bool { count == 0 }

        mutating func append(_ range: Range<Int>) {
            if inlineCount < inline.count {
                (inline.baseAddress! + inlineCount).initialize(to: range)
                inlineCount += 1
            } else {
                overflow.append(range)
            }
        }

        func forEach(_ body: (Range<Int>) -> Void) {
            for index in 0..<inlineCount { body(inline[index]) }
            for range in overflow { body(range) }
        }
    }

    private static func scrubASCII(_ bytes: UnsafeBufferPointer<UInt8>, maxLength: Int, sensitive: inout SensitiveRanges) -> ASCIIScrub {
        let count = bytes.count
        // How many digits the text holds.
        var digits = 0
        // Words are the runs between separators: `wordStart` is the first byte after the last separator.
        var wordStart = 0
        func finishWord(at end: Int) {
            if end - wordStart > 8 && isSensitiveASCII(UnsafeBufferPointer(rebasing: bytes[wordStart..<end])) {
                sensitive.append(wordStart..<end)
            }
        }
        var index = 0
        if let base = bytes.baseAddress {
            // Eight bytes at a time, as lanes of a word: a non-ASCII lane ends the pass; the digit lanes are counted;
            // each separator lane ends the word before it (lanes in order, lowest first). Every separator is below
            // 0x40, so only the lanes below 0x40 that are not digits (spaces and punctuation, a few per word of text)
            // are tested one by one; letters, at 0x40 and above, never are.
            while index + 8 <= count {
                let lanes = ASCIILanes.load(base, at: index)
                guard lanes & ASCIILanes.high == 0 else { return .notASCII }
                let digitLanes = ASCIILanes.digits(lanes)
                digits += ASCIILanes.count(digitLanes)
                var candidates = ~ASCIILanes.atLeast(lanes, 0x40) & ~digitLanes & ASCIILanes.high
                while candidates != 0 {
                    let lane = candidates.trailingZeroBitCount >> 3
                    if isSeparatorASCII(UInt8(truncatingIfNeeded: lanes >> UInt64(lane << 3))) {
                        let position = index + lane
                        if position > wordStart { finishWord(at: position) }
                        wordStart = position + 1
                    }
                    candidates &= candidates &- 1
                }
                index += 8
            }
        }
        while index < count {
            let byte = bytes[index]
            guard byte < 0x80 else { return .notASCII }
            if isDigitASCII(byte) { digits += 1 }
            if isSeparatorASCII(byte) {
                if index > wordStart { finishWord(at: index) }
                wordStart = index + 1
            }
            index += 1
        }
        if count > wordStart { finishWord(at: count) }
        let mayHoldCardNumber = digits >= cardNumberDigits
        // Without a redacted word the copy would equal the text, so its card numbers are the text's.
        if sensitive.isEmpty && count <= maxLength && !(mayHoldCardNumber && hasCardNumber(bytes)) { return .unchanged }

        // A redacted word is at least 9 bytes long (a secret prefix needs more than 8, an opaque word 40) and becomes
        // 10, so the copy is at most `count + sensitive.count` bytes; the cut adds "…" (3 bytes).
        let redacted: StaticString = "<redacted>"
        let text = String(unsafeUninitializedCapacity: count + sensitive.count + 3) { output in
            // Sound: `append` checks that every copy ends within `output` (the buffer of the capacity asked for); only
            // `bytes` is read, at ranges within its bounds. (`written` is passed inout to a static function rather than
            // captured by a nested one, which would check exclusive access at run time on every copy.)
            var written = 0
            var copied = 0
            sensitive.forEach { word in
                append(UnsafeBufferPointer(rebasing: bytes[copied..<word.lowerBound]), to: output, at: &written)
                redacted.withUTF8Buffer { append($0, to: output, at: &written) }
                copied = word.upperBound
            }
            append(UnsafeBufferPointer(rebasing: bytes[copied..<count]), to: output, at: &written)
            if mayHoldCardNumber { maskCardNumbers(UnsafeMutableBufferPointer(rebasing: output[..<written])) }
            guard written > maxLength else { return written }
            written = maxLength
            ("…" as StaticString).withUTF8Buffer { append($0, to: output, at: &written) }
            return written
        }
        return .scrubbed(text)
    }

    /// Copies `source` into `output` at `written` and moves `written` past it; traps rather than write past the end.
    @inline(__always)
    private static func append(_ source: UnsafeBufferPointer<UInt8>, to output: UnsafeMutableBufferPointer<UInt8>, at written: inout Int) {
        precondition(written + source.count <= output.count, "SafeText: the scrubbed text outgrew its bound")
        if let from = source.baseAddress, let to = output.baseAddress { (to + written).update(from: from, count: source.count) }
        written += source.count
    }

    /// The ASCII separators: space, `,`, `;`, quotes, and the ASCII whitespace (tab, line feed, vertical tab, form
    /// feed, carriage return).
    @inline(__always)
    private static func isSeparatorASCII(_ byte: UInt8) -> Bool {
        // Bits 0x09…0x0D, 0x20 (space), 0x22 ("), 0x27 ('), 0x2C (,) and 0x3B (;) of one 64-bit word.
        let separators: UInt64 = 0x3E00 | 1 << 0x20 | 1 << 0x22 | 1 << 0x27 | 1 << 0x2C | 1 << 0x3B
        return byte < 64 && separators & (1 << UInt64(byte)) != 0
    }

    /// A word of more than 8 bytes starting with a secret's prefix, or of ``opaqueWordLength`` or more bytes of the
    /// Base64/hex/key alphabet.
    private static func isSensitiveASCII(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        if word.count > 8 && startsWithSecretPrefix(word) { return true }
        guard word.count >= opaqueWordLength else { return false }
        return word.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
                || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// `sk_`, `rk_`, `pk_live`, `whsec_`, `ek_`, `eyJ`, `Bearer`, `Basic` (the list of ``scrubScalars(_:maxLength:)``),
    /// tested on the first byte first so that most words cost one comparison.
    private static func startsWithSecretPrefix(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        func has(_ prefix: StaticString) -> Bool {
            prefix.withUTF8Buffer { prefix in word.count >= prefix.count && word.starts(with: prefix) }
        }
        switch word[0] {
        case UInt8(ascii: "s"): return has("sk_")
        case UInt8(ascii: "r"): return has("rk_")
        case UInt8(ascii: "p"): return has("pk_live")
        case UInt8(ascii: "w"): return has("whsec_")
        case UInt8(ascii: "e"): return has("ek_") || has("eyJ")
        case UInt8(ascii: "B"): return has("Bearer") || has("Basic")
        default: return false
        }
    }

    @inline(__always)
    private static func isDigitASCII(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") <= 9 }

    /// The end of the card-number-shaped run starting at `start` (a digit) and its number of digits: digits, grouped
    /// by single spaces or dashes.
    @inline(__always)
    private static func digitRun<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, from start: Bytes.Index) -> (end: Bytes.Index, digits: Int) {
        var digits = 0
        var end = start
        while end < bytes.endIndex {
            if isDigitASCII(bytes[end]) {
                digits += 1
                end = bytes.index(after: end)
            } else if bytes[end] == 0x20 || bytes[end] == UInt8(ascii: "-"), bytes.index(after: end) < bytes.endIndex,
                isDigitASCII(bytes[bytes.index(after: end)])
            {
                end = bytes.index(after: end)
            } else {
                break
            }
        }
        return (end, digits)
    }

    /// The next card-number-shaped run at or after `start` holding ``cardNumberDigits`` digits or more, or nil.
    /// The bytes are ASCII (``scrubASCII(_:maxLength:)`` checked them).
    @inline(__always)
    private static func nextCardNumber(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Range<Int>? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var index = start
        while index < count {
            // Eight bytes without a digit are passed over at once.
            while index + 8 <= count, !ASCIILanes.hasDigit(ASCIILanes.load(base, at: index)) { index += 8 }
            guard index < count else { break }
            guard isDigitASCII(base[index]) else {
                index += 1
                continue
            }
            let run = digitRun(bytes, from: index)
            if run.digits >= cardNumberDigits { return index..<run.end }
            index = run.end
        }
        return nil
    }

    /// True when some run holds ``cardNumberDigits`` digits or more.
    private static func hasCardNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        nextCardNumber(in: bytes, from: 0) != nil
    }

    /// ``maskCardNumbers(_:)`` over ASCII bytes.
    private static func maskCardNumbers(_ bytes: UnsafeMutableBufferPointer<UInt8>) {
        var start = 0
        while let run = nextCardNumber(in: UnsafeBufferPointer(bytes), from: start) {
            for position in run where isDigitASCII(bytes[position]) { bytes[position] = UInt8(ascii: "*") }
            start = run.upperBound
        }
    }

    /// ``scrub(_:maxLength:)`` over Unicode scalars: the reference, and the path for text that is not all ASCII.
    static func scrubScalars(_ text: String, maxLength: Int = 300) -> String {
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(text.utf8.count)
        let scalars = Array(text.unicodeScalars)
        var start = 0
        while start < scalars.count {
            if isSeparator(scalars[start]) {
                output.append(scalars[start])
                start += 1
                continue
            }
            var end = start
            while end < scalars.count && !isSeparator(scalars[end]) { end += 1 }
            let word = scalars[start..<end]
            if isSensitive(word) { output.append(contentsOf: redacted) } else { output.append(contentsOf: word) }
            start = end
        }
        maskCardNumbers(&output)
        var view = String.UnicodeScalarView()
        if output.count > maxLength {
            view.append(contentsOf: output[..<maxLength])
            return String(view) + "…"
        }
        view.append(contentsOf: output)
        return String(view)
    }

    private static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "," || scalar == ";" || scalar == "\"" || scalar == "'" || scalar.properties.isWhitespace
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 48 && scalar.value <= 57 }

    private static func isSensitive(_ word: ArraySlice<Unicode.Scalar>) -> Bool {
        if word.count > 8 && secretPrefixes.contains(where: { word.starts(with: $0) }) { return true }
        guard word.count >= opaqueWordLength else { return false }
        return word.allSatisfy { scalar in
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil || "+/=_-".unicodeScalars.contains(scalar)
        }
    }

    /// Replaces the digits of every run of at least ``cardNumberDigits`` digits with `*`. A run may be
    /// grouped by single spaces or dashes (`4111 1111 1111 1111`, `4111-1111-…`); the separators stay.
    private static func maskCardNumbers(_ scalars: inout [Unicode.Scalar]) {
        var index = 0
        while index < scalars.count {
            guard isDigit(scalars[index]) else {
                index += 1
                continue
            }
            let runStart = index
            var digits = 0
            var runEnd = index
            while runEnd < scalars.count {
                if isDigit(scalars[runEnd]) {
                    digits += 1
                    runEnd += 1
                } else if (scalars[runEnd] == " " || scalars[runEnd] == "-") && runEnd + 1 < scalars.count && isDigit(scalars[runEnd + 1]) {
                    runEnd += 1
                } else {
                    break
                }
            }
            if digits >= cardNumberDigits {
                for position in runStart..<runEnd where isDigit(scalars[position]) { scalars[position] = "*" }
            }
            index = runEnd
        }
    }
}
