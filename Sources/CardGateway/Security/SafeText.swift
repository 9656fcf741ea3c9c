import Foundation

/// Scrubs text that came from outside (a provider's error message, a field name) before it goes into an
/// error description or a log line: anything that looks like a card number, a key or a token is masked.
///
/// The rules are written once, in the table below, and applied by one plain pass over the text's Unicode scalars.
public enum SafeText: Sendable {
    // MARK: The rules

    /// A word starting with one of these is a key, a signing secret or a token: Stripe's secret, restricted,
    /// publishable live, webhook-signing and ephemeral keys, a JWT (`eyJ` is the Base64 of `{"`), and words glued
    /// to an HTTP authorization scheme.
    static let secretPrefixes = ["sk_", "rk_", "pk_live", "whsec_", "ek_", "eyJ", "Bearer", "Basic"]
    /// A word starting with a secret's prefix is redacted from this many scalars on (shorter ones, such as `sk_id` or
    /// `Bearer` alone, are names).
    static let secretWordLength = 9
    /// Card numbers are masked from this many digits on.
    static let cardNumberDigits = 12
    /// A card number's digits may be grouped by single ones of these.
    static let cardNumberGroupSeparators: [Unicode.Scalar] = [" ", "-"]
    /// Opaque words (Base64 payloads, hex certificates, keys) are redacted from this length on.
    static let opaqueWordLength = 40
    /// What an opaque word is made of besides letters and digits.
    static let opaqueWordSymbols: [Unicode.Scalar] = ["+", "/", "=", "_", "-"]
    /// What ends a word besides whitespace.
    static let wordSeparators: [Unicode.Scalar] = [" ", ",", ";", "\"", "'"]
    /// What a redacted word becomes.
    static let redaction = "<redacted>"
    /// What marks a cut text.
    static let cutMark = "…"

    // MARK: Applying them

    /// The text with card numbers (12 or more digits, also when grouped by single spaces or dashes), key- and
    /// JWT-shaped words and long opaque blobs masked, then cut to `maxLength` Unicode scalars (and marked with "…").
    /// The whole text is examined before it is cut, so a secret straddling the cut is still found.
    public static func scrub(_ text: String, maxLength: Int = 300) -> String {
        var scrubbed = redactingSensitiveWords(in: text)
        maskCardNumbers(in: &scrubbed)
        return cut(scrubbed, to: maxLength)
    }

    /// Whether `scalar` ends a word: one of ``wordSeparators`` or Unicode whitespace.
    static func isWordSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? asciiWordSeparators[Int(scalar.value)] : scalar.properties.isWhitespace
    }

    /// ``isWordSeparator(_:)``'s answers for the 128 ASCII scalars, worked out once from the rule (looking up a
    /// scalar's Unicode properties costs far more than reading this table).
    private static let asciiWordSeparators: [Bool] = (0..<128).map { value in
        let scalar = Unicode.Scalar(UInt8(value))
        return wordSeparators.contains(scalar) || scalar.properties.isWhitespace
    }

    /// The text with every sensitive word (``isSensitive(_:length:)``) replaced by ``redaction``.
    static func redactingSensitiveWords(in text: String) -> String {
        // One pass over the scalars, keeping the current word's start (as a string index) and length (in scalars).
        let utf8 = text.utf8
        var sensitive: [Range<String.Index>] = []
        var wordStart = utf8.startIndex
        var wordLength = 0
        var position = utf8.startIndex
        for scalar in text.unicodeScalars {
            let next = utf8.index(position, offsetBy: UTF8.width(scalar))
            if isWordSeparator(scalar) {
                if isSensitive(text[wordStart..<position], length: wordLength) { sensitive.append(wordStart..<position) }
                wordStart = next
                wordLength = 0
            } else {
                wordLength += 1
            }
            position = next
        }
        if isSensitive(text[wordStart...], length: wordLength) { sensitive.append(wordStart..<text.endIndex) }
        guard !sensitive.isEmpty else { return text }
        var result = ""
        var copied = text.startIndex
        for word in sensitive {
            result += text[copied..<word.lowerBound]
            result += redaction
            copied = word.upperBound
        }
        result += text[copied...]
        return result
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    /// A word of ``secretWordLength`` or more scalars starting with one of ``secretPrefixes``, or of
    /// ``opaqueWordLength`` or more letters, digits and ``opaqueWordSymbols``. `length` is its length in scalars.
    static func isSensitive(_ word: Substring, length: Int) -> Bool {
        if length >= secretWordLength && secretPrefixes.contains(where: { word.utf8.starts(with: $0.utf8) }) {
            return true
        }
        return length >= opaqueWordLength
            && word.unicodeScalars.allSatisfy { scalar in
                scalar.properties.isAlphabetic || scalar.properties.numericType != nil || opaqueWordSymbols.contains(scalar)
            }
    }

    /// Replaces the digits of every run of at least ``cardNumberDigits`` digits with `*`; a run may be grouped by
    /// single ``cardNumberGroupSeparators`` (`4111 1111 1111 1111`, `4111-1111-…`), which stay. Digits and group
    /// separators are ASCII, so the text's UTF-8 bytes are read: no byte of a longer scalar is either.
    static func maskCardNumbers(in text: inout String) {
        func isDigit(_ byte: UInt8) -> Bool { Self.isDigit(Unicode.Scalar(byte)) }
        func isGroupSeparator(_ byte: UInt8) -> Bool { cardNumberGroupSeparators.contains(Unicode.Scalar(byte)) }
        var digits = 0
        for byte in text.utf8 where isDigit(byte) { digits += 1 }
        guard digits >= cardNumberDigits else { return }
        var bytes = Array(text.utf8)
        var masked = false
        var index = 0
        while index < bytes.count {
            guard isDigit(bytes[index]) else {
                index += 1
                continue
            }
            let runStart = index
            var runDigits = 0
            var runEnd = index
            while runEnd < bytes.count {
                if isDigit(bytes[runEnd]) {
                    runDigits += 1
                    runEnd += 1
                } else if isGroupSeparator(bytes[runEnd]) && runEnd + 1 < bytes.count && isDigit(bytes[runEnd + 1]) {
                    runEnd += 1
                } else {
                    break
                }
            }
            if runDigits >= cardNumberDigits {
                for position in runStart..<runEnd where isDigit(bytes[position]) { bytes[position] = UInt8(ascii: "*") }
                masked = true
            }
            index = runEnd
        }
        if masked { text = String(decoding: bytes, as: UTF8.self) }
    }

    /// The text's first `maxLength` scalars and ``cutMark`` when it is longer, else the text.
    static func cut(_ text: String, to maxLength: Int) -> String {
        // A text has no more scalars than UTF-8 bytes.
        guard text.utf8.count > maxLength else { return text }
        let scalars = text.unicodeScalars
        guard let end = scalars.index(scalars.startIndex, offsetBy: max(0, maxLength), limitedBy: scalars.endIndex),
            end < scalars.endIndex
        else { return text }
        return String(Substring(scalars[..<end])) + cutMark
    }
}
