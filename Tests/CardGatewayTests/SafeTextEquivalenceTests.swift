@testable import CardGateway
import Foundation
import SharedTestSupport
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
        var generator = SeededGenerator(state: 7)
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

    @Test("random text over every ASCII byte, each at every position of an eight-byte group, scrubs as the scalar path")
    func everyByteEveryLane() {
        var generator = SeededGenerator(state: 11)
        // Every byte, with digits and separators (and the bytes next to their ranges) more often, so that runs of
        // digits, words of every length and separators land in every lane.
        let weighted: [UInt8] = Array(0..<128) + Array(repeating: Array(UInt8(ascii: "0")...UInt8(ascii: "9")), count: 6).flatMap { $0 }
            + [0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x26, 0x27, 0x28, 0x2B, 0x2C, 0x2D, 0x2F, 0x3A, 0x3B, 0x3C]
            + Array(repeating: [0x20, 0x2D], count: 4).flatMap { $0 }
        for _ in 0..<5_000 {
            var bytes = (0..<Int.random(in: 0...90, using: &generator)).map { _ in weighted.randomElement(using: &generator)! }
            if Bool.random(using: &generator) {
                // A secret's prefix or a long opaque word somewhere.
                let word = Array(["sk_test_4eC39HqLyjWDarjtT1zdp7dc", "eyJhbGciOiJIUzI1NiJ9.x", String(repeating: "Ab9+", count: 11)].randomElement(using: &generator)!.utf8)
                bytes.insert(contentsOf: word, at: Int.random(in: 0...bytes.count, using: &generator))
            }
            let text = String(decoding: bytes, as: UTF8.self)
            for maxLength in [7, 300] {
                #expect(SafeText.scrub(text, maxLength: maxLength) == SafeText.scrubScalars(text, maxLength: maxLength), "\(text.debugDescription)")
            }
        }
        // More sensitive words than the stack holds (8): the rest go to an array, and every one is redacted.
        for words in [7, 8, 9, 30] {
            let text = (0..<words).map { "sk_test_\($0)abcdefghij" }.joined(separator: " ")
            #expect(SafeText.scrub(text, maxLength: 2_000) == SafeText.scrubScalars(text, maxLength: 2_000))
            #expect(SafeText.scrub(text, maxLength: 2_000) == Array(repeating: "<redacted>", count: words).joined(separator: " "))
        }
        // A byte that is not ASCII, at every offset of a text long enough for several groups, sends it to the scalar path.
        for offset in 0..<40 {
            var text = Array(String(repeating: "4111 card_", count: 4).utf8)
            text.replaceSubrange(offset..<(offset + 1), with: Array("é".utf8))
            let outcome = text.withUnsafeBufferPointer { SafeText.scrubASCII($0, maxLength: 300) }
            #expect(outcome == .notASCII, "offset \(offset)")
        }
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
