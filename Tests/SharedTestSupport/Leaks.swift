import Foundation

/// Which of `needles` (secrets, card data) `text` holds, for the tests that look for leaks in logs, journals and
/// descriptions.
///
/// A CVC is three digits, which random ids, timestamps and durations hold by chance: the Stripe reveal test found
/// one in the simulator's journal in 2 soak runs of 10, and a number in a log line's metadata in 1 of 10 after that.
/// A needle shorter than six characters therefore counts only next to a name a CVC goes by (`"cvc":"388"`,
/// `card_security_code=388`, `CVV 388`); a longer one counts wherever it appears.
public func leakedNeedles(_ needles: [String], in text: String) -> [String] {
    needles.filter { needle in
        guard !needle.isEmpty else { return false }
        guard needle.count < 6 else { return text.contains(needle) }
        let escaped = NSRegularExpression.escapedPattern(for: needle)
        guard let pattern = try? Regex("(?i)(cvc|cvv|security.?code)[\"':= ]{0,4}\(escaped)(?![0-9])") else {
            return true
        }
        return text.contains(pattern)
    }
}
