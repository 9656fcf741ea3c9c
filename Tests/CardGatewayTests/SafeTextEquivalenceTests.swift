@testable import CardGateway
import Foundation
import Testing

/// `SafeText.scrub` reads ASCII text byte by byte; the Unicode scalar path it replaced for ASCII is kept as the
/// reference (and still scrubs everything else). Both must give the same text, character for character.
@Suite("Redaction: the ASCII fast path scrubs as the scalar path does")
struct SafeTextEquivalenceTests {
    static let providerMessage =
        "Your card 4242 4242 4242 4242 was declined (card_declined); request made with key sk_test_4eC39HqLyjWDarjtT1zdp7dc, "
        + "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U; "
        + "PAN 5555555555554444; see https://support.example.com/declines for details."

    @Test("every ASCII character alone, and between digits and a key")
    func everyASCIICharacter() {
        for value in 0..<128 {
            let character = String(UnicodeScalar(UInt8(value)))
            for text in [character, "4111 1111\(character)1111 1111", "sk_test_abcdef\(character)ghijkl", String(repeating: "A", count: 39) + character] {
                #expect(SafeText.scrub(text) == SafeText.scrubScalars(text), "character \(value)")
            }
        }
    }

    @Test("random ASCII text from a card-and-key-heavy alphabet, at several cut lengths")
    func randomText() {
        var generator = RouterEquivalenceTests.Generator(state: 7)
        let pieces = ["4", "1", "0", " ", "-", ",", ";", "\t", "\n", "sk_", "eyJ", "Bearer", "whsec_", "pk_live", "a", "Z", "+", "/", "=", "_", "'", "\"", ".", ":", "x9"]
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...120, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            for maxLength in [0, 5, 40, 300] {
                #expect(SafeText.scrub(text, maxLength: maxLength) == SafeText.scrubScalars(text, maxLength: maxLength), "\(text.debugDescription)")
            }
        }
        #expect(SafeText.scrub(Self.providerMessage) == SafeText.scrubScalars(Self.providerMessage))
        #expect(SafeText.scrub(Self.providerMessage, maxLength: 20) == SafeText.scrubScalars(Self.providerMessage, maxLength: 20))
    }

    @Test("text with nothing to mask and within the length comes back as it is; anything else is rewritten")
    func unchangedText() {
        func outcome(_ text: String, maxLength: Int = 300) -> SafeText.ASCIIScrub? {
            text.utf8.withContiguousStorageIfAvailable { SafeText.scrubASCII($0, maxLength: maxLength) }
        }
        for text in ["card.expiry", "must be greater than 0", "req_8Hq2LfzX0a1b2c", "card 4242 4242 424", "sk_short", ""] {
            #expect(outcome(text) == .unchanged, "\(text)")
            #expect(SafeText.scrub(text) == text)
        }
        #expect(outcome("card 4242 4242 4242 4242") == .scrubbed("card **** **** **** ****"))
        #expect(outcome("key sk_test_4eC39HqLyjWDarjtT1zdp7dc") == .scrubbed("key <redacted>"))
        #expect(outcome("must be greater than 0", maxLength: 4) == .scrubbed("must…"))
        #expect(outcome("refusée") == .notASCII)
    }

    @Test("text that is not all ASCII takes the scalar path and is still scrubbed")
    func nonASCII() {
        let text = "Carte 4242\u{00A0}4242 4242 4242 refusée — clé sk_test_4eC39HqLyjWDarjtT1zdp7dc"
        #expect(SafeText.scrub(text) == SafeText.scrubScalars(text))
        #expect(!SafeText.scrub(text).contains("sk_test"))
    }
}
