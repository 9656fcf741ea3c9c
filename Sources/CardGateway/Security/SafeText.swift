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
    static let secretPrefixes = ["sk_", "rk_", "pk_live", "whsec_", "ek_", "ephkn_", "eyJ", "Bearer", "Basic"]
    /// A word starting with a secret's prefix is redacted from this many scalars on (shorter ones, such as `sk_id` or
    /// `Bearer` alone, are names).
    static let secretWordLength = 9
    /// HTTP authorization schemes whose credential is the next word (`Basic dXNlcjpw…`, `Bearer 8f2c…`): the word
    /// that follows one of these, in any casing (schemes are case-insensitive, RFC 9110 §11.1), is redacted whatever
    /// its length or shape. Prose loses a word too ("Bearer of the card" reads "Bearer <redacted> the card"): a
    /// credential after the scheme matters more than prose is to read.
    static let credentialSchemes = ["Basic", "Bearer"]
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
    /// JWT-shaped words, the word after a `Basic` or `Bearer` scheme and long opaque blobs masked, then cut to
    /// `maxLength` Unicode scalars (and marked with "…"). The whole text is examined before it is cut, so a secret
    /// straddling the cut is still found.
    public static func scrub(_ text: String, maxLength: Int = 300) -> String {
        let utf8 = Array(text.utf8)
        let found = sensitiveWords(in: text, utf8: utf8)
        let maxLength = max(0, maxLength)
        // Nothing to redact, too few digits for a card number, short enough: the text as it is.
        if found.words.isEmpty && found.digits < cardNumberDigits && found.scalars <= maxLength { return text }
        // The output is built once, as UTF-8: the text with its sensitive words replaced (the last first, so that
        // the earlier ranges still hold), its card numbers masked in place, then cut.
        var bytes = utf8
        for word in found.words.reversed() { bytes.replaceSubrange(word, with: redaction.utf8) }
        if found.digits >= cardNumberDigits { maskCardNumbers(in: &bytes) }
        cut(&bytes, to: maxLength)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `scalar` ends a word: one of ``wordSeparators`` or Unicode whitespace.
    static func isWordSeparator(_ scalar: Unicode.Scalar) -> Bool {
        wordSeparators.contains(scalar) || scalar.properties.isWhitespace
    }

    /// Whether `scalar` may be part of an opaque word: a letter, a digit or one of ``opaqueWordSymbols``.
    static func isOpaqueWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil || opaqueWordSymbols.contains(scalar)
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    /// One pass over the text's scalars: the UTF-8 offsets of its sensitive words
    /// (``isSensitive(_:length:isOpaque:followsScheme:)``) in order, how many ASCII digits it holds and how many
    /// scalars. `utf8` is the text's UTF-8.
    static func sensitiveWords(in text: String, utf8: [UInt8]) -> (words: [Range<Int>], digits: Int, scalars: Int) {
        var words: [Range<Int>] = []
        var digits = 0
        var scalarCount = 0
        // The current word: its first byte's offset, its length in scalars, whether every scalar so far may be opaque.
        var wordStart = 0
        var wordLength = 0
        var wordIsOpaque = true
        // Whether the last word (empty ones aside) was a ``credentialSchemes`` word.
        var followsScheme = false
        var offset = 0
        for scalar in text.unicodeScalars {
            let next = offset + UTF8.width(scalar)
            scalarCount += 1
            if isWordSeparator(scalar) {
                if wordLength > 0 {
                    let word = utf8[wordStart..<offset]
                    if isSensitive(word, length: wordLength, isOpaque: wordIsOpaque, followsScheme: followsScheme) {
                        words.append(wordStart..<offset)
                    }
                    followsScheme = isCredentialScheme(word)
                }
                wordStart = next
                wordLength = 0
                wordIsOpaque = true
            } else {
                if isDigit(scalar) { digits += 1 }
                wordLength += 1
                if wordIsOpaque && !isOpaqueWordScalar(scalar) {
                    wordIsOpaque = false
                }
            }
            offset = next
        }
        if wordLength > 0,
            isSensitive(utf8[wordStart...], length: wordLength, isOpaque: wordIsOpaque, followsScheme: followsScheme)
        {
            words.append(wordStart..<utf8.count)
        }
        return (words, digits, scalarCount)
    }

    /// A word that follows a ``credentialSchemes`` word, or of ``secretWordLength`` or more scalars starting with one
    /// of ``secretPrefixes``, or of ``opaqueWordLength`` or more letters, digits and ``opaqueWordSymbols``
    /// (`isOpaque`). `word` is its UTF-8, `length` its length in scalars.
    static func isSensitive(_ word: ArraySlice<UInt8>, length: Int, isOpaque: Bool, followsScheme: Bool) -> Bool {
        followsScheme
            || (length >= secretWordLength && secretPrefixes.contains { word.starts(with: $0.utf8) })
            || (length >= opaqueWordLength && isOpaque)
    }

    /// Whether the word (its UTF-8) is one of ``credentialSchemes`` in any casing (they are ASCII letters).
    static func isCredentialScheme(_ word: ArraySlice<UInt8>) -> Bool {
        func lowercased(_ byte: UInt8) -> UInt8 {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
        }
        return credentialSchemes.contains { scheme in
            scheme.utf8.count == word.count && word.elementsEqual(scheme.utf8) { lowercased($0) == lowercased($1) }
        }
    }

    /// Replaces the digits of every run of at least ``cardNumberDigits`` digits with `*`; a run may be grouped by
    /// single ``cardNumberGroupSeparators`` (`4111 1111 1111 1111`, `4111-1111-…`), which stay. Digits and group
    /// separators are ASCII, so UTF-8 bytes are read: no byte of a longer scalar is either.
    static func maskCardNumbers(in bytes: inout [UInt8]) {
        func isDigit(_ byte: UInt8) -> Bool { Self.isDigit(Unicode.Scalar(byte)) }
        func isGroupSeparator(_ byte: UInt8) -> Bool { cardNumberGroupSeparators.contains(Unicode.Scalar(byte)) }
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
            }
            index = runEnd
        }
    }

    /// Keeps the first `maxLength` scalars of the UTF-8 `bytes` and appends ``cutMark`` when there are more.
    static func cut(_ bytes: inout [UInt8], to maxLength: Int) {
        // A text has no more scalars than UTF-8 bytes.
        guard bytes.count > maxLength else { return }
        var scalars = 0
        var end = 0
        // `end` becomes the offset of the first byte of scalar number `maxLength` (counting from 0), if there is one.
        while end < bytes.count {
            if !UTF8.isContinuation(bytes[end]) {
                if scalars == maxLength { break }
                scalars += 1
            }
            end += 1
        }
        guard end < bytes.count else { return }
        bytes.removeSubrange(end...)
        bytes.append(contentsOf: cutMark.utf8)
    }
}
