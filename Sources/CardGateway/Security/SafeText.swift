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
