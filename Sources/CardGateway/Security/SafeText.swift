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
        // goes through the Unicode scalar path. Both are checked against each other in SafeTextTests. The buffer
        // pointer is the string's own UTF-8 storage, only read, within bounds, and only inside the closure.
        if let scrubbed = text.utf8.withContiguousStorageIfAvailable({ scrubASCII($0, maxLength: maxLength) }), let scrubbed {
            return scrubbed
        }
        return scrubScalars(text, maxLength: maxLength)
    }

    private static let redactedBytes = Array("<redacted>".utf8)
    private static let secretPrefixBytes = ["sk_", "rk_", "pk_live", "whsec_", "ek_", "eyJ", "Bearer", "Basic"].map { Array($0.utf8) }

    /// ``scrub(_:maxLength:)`` over ASCII bytes (one byte per scalar, so counts and cuts are the same); nil when the
    /// text is not all ASCII.
    static func scrubASCII(_ bytes: UnsafeBufferPointer<UInt8>, maxLength: Int) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var start = 0
        while start < bytes.count {
            let byte = bytes[start]
            guard byte < 0x80 else { return nil }
            if isSeparatorASCII(byte) {
                output.append(byte)
                start += 1
                continue
            }
            var end = start
            while end < bytes.count && !isSeparatorASCII(bytes[end]) {
                guard bytes[end] < 0x80 else { return nil }
                end += 1
            }
            let word = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if isSensitiveASCII(word) { output.append(contentsOf: redactedBytes) } else { output.append(contentsOf: word) }
            start = end
        }
        maskCardNumbers(&output)
        if output.count > maxLength {
            output.removeSubrange(maxLength...)
            output.append(contentsOf: "…".utf8)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The ASCII separators: space, `,`, `;`, quotes, and the ASCII whitespace (tab, line feed, vertical tab, form
    /// feed, carriage return).
    private static func isSeparatorASCII(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
            || (byte >= 0x09 && byte <= 0x0D)
    }

    private static func isSensitiveASCII(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        if word.count > 8 && secretPrefixBytes.contains(where: { word.starts(with: $0) }) { return true }
        guard word.count >= opaqueWordLength else { return false }
        return word.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
                || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// ``maskCardNumbers(_:)`` over ASCII bytes.
    private static func maskCardNumbers(_ bytes: inout [UInt8]) {
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var index = 0
        while index < bytes.count {
            guard isDigit(bytes[index]) else {
                index += 1
                continue
            }
            let runStart = index
            var digits = 0
            var runEnd = index
            while runEnd < bytes.count {
                if isDigit(bytes[runEnd]) {
                    digits += 1
                    runEnd += 1
                } else if (bytes[runEnd] == 0x20 || bytes[runEnd] == UInt8(ascii: "-")) && runEnd + 1 < bytes.count && isDigit(bytes[runEnd + 1]) {
                    runEnd += 1
                } else {
                    break
                }
            }
            if digits >= cardNumberDigits {
                for position in runStart..<runEnd where isDigit(bytes[position]) { bytes[position] = UInt8(ascii: "*") }
            }
            index = runEnd
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
