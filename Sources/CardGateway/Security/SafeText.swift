import Foundation

/// Scrubs text that came from outside (a provider's error message, a field name) before it goes into an
/// error description or a log line: anything that looks like a card number, a key or a token is masked.
public enum SafeText {
    /// The text with long digit runs (card numbers), bearer-like keys and JWT-shaped tokens masked, and cut
    /// to a sane length.
    public static func scrub(_ text: String, maxLength: Int = 300) -> String {
        var output = ""
        output.reserveCapacity(min(text.count, maxLength))
        for word in splitKeepingSeparators(text) {
            output += isSensitive(word) ? "<redacted>" : maskDigitRuns(word)
        }
        if output.count > maxLength { output = String(output.prefix(maxLength)) + "…" }
        return output
    }

    private static func splitKeepingSeparators(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        for character in text {
            if character.isWhitespace || character == "," || character == ";" || character == "\"" || character == "'" {
                if !current.isEmpty { parts.append(current) }
                parts.append(String(character))
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }

    private static let secretPrefixes = ["sk_", "rk_", "pk_live", "whsec_", "ek_", "eyJ", "Bearer", "Basic"]

    private static func isSensitive(_ word: String) -> Bool {
        if secretPrefixes.contains(where: { word.hasPrefix($0) }) && word.count > 8 { return true }
        // Long opaque blobs (Base64 payloads, hex certificates).
        if word.count >= 40, word.allSatisfy({ $0.isLetter || $0.isNumber || "+/=_-".contains($0) }) { return true }
        return false
    }

    /// Masks any run of 12 or more digits (optionally split by spaces or dashes inside the word).
    private static func maskDigitRuns(_ word: String) -> String {
        var result = ""
        var run = ""
        func flush() {
            if run.count >= 12 { result += String(repeating: "*", count: run.count) } else { result += run }
            run = ""
        }
        for character in word {
            if character.isASCII && character.isNumber { run.append(character) } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }
}
