@testable import CardGateway
import Foundation
import SharedTestSupport
import Testing

/// `SafeText.scrub`'s rules, each checked on seeded generated texts against an expected text the generator builds
/// itself (it knows what it planted where), not against another implementation.
@Suite("Redaction: SafeText's rules hold on generated texts", .timeLimit(.minutes(5)))
struct SafeTextRuleTests {
    /// Written out here, not read from `SafeText`: the generator plants every one of them.
    static let prefixes = ["sk_", "rk_", "pk_live", "whsec_", "ek_", "ephkn_", "eyJ", "Bearer", "Basic"]
    /// Every separator kind: the ASCII ones, whitespace outside ASCII (no-break, em and ideographic spaces).
    static let separators = [
        " ", ",", ";", "\"", "'", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{00A0}", "\u{2003}", "\u{3000}", ", ", "; ",
    ]
    /// Words with nothing to mask: no digit, shorter than the opaque length, prefixes alone or too short to be a
    /// secret, text beyond ASCII. Not `Basic` or `Bearer`: the word after them is masked (``credentialSchemes()``).
    static let filler = [
        "card", "declined", "was", "card_declined", "see", "https://support.example.com/x", "refusée", "clé", "—",
        "ok.",
        "Basic:", "Bearer_", "sk_", "rk_live", "ek_test", "eyJ", "whsec_", "pk_live", "pk_test_abcdef", "ephkn_",
        "Authorization:",
        "a=b&c", "x+y/z", "token", "(card)", "Ünïcødé", "名前",
    ]
    static let secretBody = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
    static let opaqueAlphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/=_-")

    /// A generated text and the text `scrub` must give for it (uncut).
    struct Sample {
        var text = ""
        var expected = ""
        var planted: [String: Int] = [:]

        mutating func add(_ word: String, expected replacement: String? = nil, kind: String? = nil) {
            text += word
            expected += replacement ?? word
            if let kind { planted[kind, default: 0] += 1 }
        }
    }

    static func sample(
        _ generator: inout SeededGenerator, plant: (inout SeededGenerator, inout Sample) -> Void
    ) -> Sample {
        var sample = Sample()
        // Never two planted words in a row: two numbers a space apart would be one run.
        var plantedLast = false
        for index in 0..<Int.random(in: 1...12, using: &generator) {
            if index > 0 { sample.add(separators.randomElement(using: &generator)!) }
            plantedLast = !plantedLast && Int.random(in: 0..<2, using: &generator) == 0
            if plantedLast {
                plant(&generator, &sample)
            } else {
                sample.add(filler.randomElement(using: &generator)!)
            }
        }
        return sample
    }

    @Test("the test's prefixes are SafeText's table")
    func prefixTable() {
        #expect(Set(Self.prefixes) == Set(SafeText.secretPrefixes))
    }

    @Test("a word of 9 or more scalars starting with a secret's prefix is redacted, a shorter one stays")
    func secretPrefixes() {
        var generator = SeededGenerator(state: 37)
        var planted: [String: Int] = [:]
        for _ in 0..<3_000 {
            let sample = Self.sample(&generator) { generator, sample in
                let prefix = Self.prefixes.randomElement(using: &generator)!
                // `Basic` or `Bearer` alone is a scheme, which masks the word after it (``credentialSchemes()``).
                let shortest = ["Basic", "Bearer"].contains(prefix) ? prefix.count + 1 : max(prefix.count, 5)
                let length = Int.random(in: shortest...48, using: &generator)
                let word =
                    prefix
                    + String((prefix.count..<length).map { _ in Self.secretBody.randomElement(using: &generator)! })
                let redacted = word.unicodeScalars.count >= 9
                sample.add(word, expected: redacted ? "<redacted>" : word, kind: redacted ? prefix : nil)
            }
            for (prefix, count) in sample.planted { planted[prefix, default: 0] += count }
            #expect(SafeText.scrub(sample.text, maxLength: .max) == sample.expected, "\(sample.text.debugDescription)")
        }
        for prefix in Self.prefixes {
            #expect(planted[prefix, default: 0] >= 100, "\(prefix) planted \(planted[prefix, default: 0]) times")
        }
    }

    @Test("a run of 12 or more digits, grouped by single spaces or dashes, has every digit masked; 11 stay")
    func cardNumbers() {
        var generator = SeededGenerator(state: 41)
        var masked = 0
        var kept = 0
        for _ in 0..<3_000 {
            let sample = Self.sample(&generator) { generator, sample in
                let digits = Int.random(in: 1...19, using: &generator)
                var number = ""
                for index in 0..<digits {
                    if index > 0, Int.random(in: 0..<4, using: &generator) == 0 {
                        number += ["-", " "].randomElement(using: &generator)!
                    }
                    number += String(Int.random(in: 0...9, using: &generator))
                }
                // Glued to a word or alone; the neighbours hold no digit, so the run is exactly the number.
                let (before, after) = [("", ""), ("card=", "&x"), ("PAN:", "."), ("(", ")")].randomElement(
                    using: &generator)!
                let isCard = digits >= 12
                let shown = isCard ? String(number.map { $0.isASCII && $0.isNumber ? "*" : $0 }) : number
                sample.add(before + number + after, expected: before + shown + after, kind: isCard ? "card" : "short")
            }
            masked += sample.planted["card", default: 0]
            kept += sample.planted["short", default: 0]
            #expect(SafeText.scrub(sample.text, maxLength: .max) == sample.expected, "\(sample.text.debugDescription)")
        }
        #expect(masked >= 300 && kept >= 300)
    }

    @Test("a word of 40 or more letters, digits and + / = _ - is redacted; 39 stay")
    func opaqueWords() {
        var generator = SeededGenerator(state: 43)
        for _ in 0..<2_000 {
            let sample = Self.sample(&generator) { generator, sample in
                if Bool.random(using: &generator) {
                    let word = String(
                        (0..<Int.random(in: 40...120, using: &generator)).map { _ in
                            Self.opaqueAlphabet.randomElement(using: &generator)!
                        })
                    sample.add(word, expected: "<redacted>")
                } else {
                    // Letters only (no digits, so no card number), not starting with a prefix.
                    let word =
                        "Q"
                        + String(
                            (1..<Int.random(in: 10...39, using: &generator)).map { _ in
                                "abcXYZ".randomElement(using: &generator)!
                            })
                    sample.add(word)
                }
            }
            #expect(SafeText.scrub(sample.text, maxLength: .max) == sample.expected, "\(sample.text.debugDescription)")
        }
        // Letters beyond ASCII count as letters.
        let accented = String(repeating: "é", count: 40)
        #expect(SafeText.scrub("x \(accented) y") == "x <redacted> y")
        #expect(SafeText.scrub("x \(accented.dropLast()) y") == "x \(accented.dropLast()) y")
    }

    @Test("exactly the separators split words: every ASCII scalar and some beyond, inside a key")
    func separatorsSplitWords() {
        let separators: Set<UInt32> = [
            0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x22, 0x27, 0x2C, 0x3B, 0x85, 0xA0, 0x1680, 0x2000, 0x200A, 0x2028,
            0x2029, 0x202F, 0x205F, 0x3000,
        ]
        for value in Array(0..<128) + [
            0x85, 0xA0, 0xE9, 0x1680, 0x2000, 0x200A, 0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF,
        ] {
            let scalar = String(Unicode.Scalar(UInt32(value))!)
            for prefix in Self.prefixes {
                let text = prefix + "abcdefghij" + scalar + "tail"
                let expected = separators.contains(UInt32(value)) ? "<redacted>" + scalar + "tail" : "<redacted>"
                #expect(SafeText.scrub(text) == expected, "U+\(String(value, radix: 16)) after \(prefix)")
            }
        }
    }

    @Test(
        "the cut keeps the first maxLength scalars of the scrubbed text and marks it; scrubbing twice changes nothing")
    func cutAndIdempotence() {
        var generator = SeededGenerator(state: 47)
        for _ in 0..<2_000 {
            let sample = Self.sample(&generator) { generator, sample in
                let pieces = [
                    "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "4111 1111 1111 1111", "Basic dXNlcjpwYXNzd29yZA==",
                    "ek_test_YWJjZGVmZ2hp",
                ]
                sample.add(pieces.randomElement(using: &generator)!)
            }
            let full = SafeText.scrub(sample.text, maxLength: .max)
            #expect(SafeText.scrub(full, maxLength: .max) == full)
            let maxLength = Int.random(in: 0...160, using: &generator)
            let cut = SafeText.scrub(sample.text, maxLength: maxLength)
            if full.unicodeScalars.count <= maxLength {
                #expect(cut == full)
            } else {
                var prefix = String.UnicodeScalarView()
                prefix.append(contentsOf: full.unicodeScalars.prefix(maxLength))
                #expect(cut == String(prefix) + "…", "\(sample.text.debugDescription) at \(maxLength)")
            }
        }
    }

    @Test("text with nothing to mask and within the length comes back as it is")
    func unchangedText() {
        var generator = SeededGenerator(state: 53)
        for _ in 0..<1_000 {
            let sample = Self.sample(&generator) { generator, sample in
                sample.add(Self.filler.randomElement(using: &generator)!)
            }
            #expect(SafeText.scrub(sample.text, maxLength: .max) == sample.text)
        }
        for text in [
            "card.expiry", "must be greater than 0", "req_8Hq2LfzX0a1b2c", "card 4242 4242 424", "sk_short", "Basic",
            "Bearer", "x Bearer", "",
        ] {
            #expect(SafeText.scrub(text) == text)
        }
        #expect(SafeText.scrub("must be greater than 0", maxLength: 4) == "must…")
        #expect(SafeText.scrub("abc", maxLength: 0) == "…")
    }

    /// `Basic` and `Bearer` are HTTP authorization schemes (RFC 9110 §11.1, case-insensitive): the next word is the
    /// credential, whatever its length or shape. Prose after the word loses a word too; a credential matters more.
    @Test("the word after Basic or Bearer, in any casing, is redacted whatever its length; prose after Bearer too")
    func credentialSchemes() {
        let basic = Data("user:pa55".utf8).base64EncodedString()  // dXNlcjpwYTU1: 12 characters, no listed prefix
        #expect(SafeText.scrub("Authorization: Basic \(basic)") == "Authorization: Basic <redacted>")
        #expect(SafeText.scrub("sent Bearer 8f2c1a9e, refused") == "sent Bearer <redacted>, refused")
        #expect(SafeText.scrub("authorization: bearer abc123 expired") == "authorization: bearer <redacted> expired")
        #expect(SafeText.scrub("BEARER x; BaSiC y") == "BEARER <redacted>; BaSiC <redacted>")
        // Separators between the scheme and its credential: the next word, past empty ones, is the credential.
        #expect(SafeText.scrub("Bearer \"tok\" next") == "Bearer \"<redacted>\" next")
        #expect(SafeText.scrub("Basic\u{00A0}\tdXNlcjpwYTU1") == "Basic\u{00A0}\t<redacted>")
        // The decision: prose loses its word (a credential after the scheme matters more than prose is to read).
        #expect(SafeText.scrub("Bearer of the card") == "Bearer <redacted> the card")
        // Only the scheme word itself counts: glued or longer words are not schemes (the prefix rule still applies).
        #expect(SafeText.scrub("Basic: x Bearers y Bearer_ z") == "Basic: x Bearers y Bearer_ z")
        #expect(SafeText.scrub("BearerABCDEFGH x") == "<redacted> x")
        // A scheme as the last word has nothing to mask; a redacted credential stays as it is when scrubbed again.
        #expect(SafeText.scrub("token type Bearer") == "token type Bearer")
        #expect(SafeText.scrub(SafeText.scrub("Bearer abc")) == "Bearer <redacted>")

        // Generated: a scheme in any casing, then separators, then a short credential.
        var generator = SeededGenerator(state: 59)
        for _ in 0..<2_000 {
            let sample = Self.sample(&generator) { generator, sample in
                let scheme = String(
                    ["Basic", "Bearer"].randomElement(using: &generator)!.map { letter in
                        Bool.random(using: &generator) ? Character(letter.uppercased()) : Character(letter.lowercased())
                    })
                let credential = String(
                    (0..<Int.random(in: 1...39, using: &generator)).map { _ in
                        Self.opaqueAlphabet.randomElement(using: &generator)!
                    })
                // Letters after the credential keep a digit in it from joining a planted number that follows.
                sample.add(
                    scheme + [" ", "\t", " \"", "\u{00A0}"].randomElement(using: &generator)! + credential + " Q",
                    expected: nil, kind: nil)
                sample.expected.removeLast((credential + " Q").count)
                sample.expected += "<redacted> Q"
            }
            #expect(SafeText.scrub(sample.text, maxLength: .max) == sample.expected, "\(sample.text.debugDescription)")
        }
    }

    @Test("a provider message with a card number, a key and a JWT, ASCII or not")
    func providerMessage() {
        let message =
            "Your card 4242 4242 4242 4242 was declined (card_declined); request made with key sk_test_4eC39HqLyjWDarjtT1zdp7dc, "
            + "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U; "
            + "PAN 5555555555554444; see https://support.example.com/declines for details."
        #expect(
            SafeText.scrub(message)
                == "Your card **** **** **** **** was declined (card_declined); request made with key <redacted>, token <redacted>; "
                + "PAN ****************; see https://support.example.com/declines for details."
        )
        #expect(SafeText.scrub(message, maxLength: 20) == "Your card **** **** …")
        let french =
            "Carte 4242\u{00A0}4242 4242 4242 refusée — clé sk_test_4eC39HqLyjWDarjtT1zdp7dc rk_live_abcdefgh ek_test_abcdefgh"
        // The no-break space is a separator for words, not a card number's group separator.
        #expect(
            SafeText.scrub(french) == "Carte 4242\u{00A0}**** **** **** refusée — clé <redacted> <redacted> <redacted>")
    }
}
