@testable import CardGateway
import SharedTestSupport
import Testing

/// `BINRange.parse` against an oracle written here from the documented rule (a prefix of 6 to 11 ASCII digits, or
/// `LOW-HIGH` of two such prefixes of one length with low ≤ high), not against another copy of the parser.
@Suite("Routing: BIN ranges parse as documented", .timeLimit(.minutes(5)))
struct BINRangeParseTests {
    static func outcome(_ result: Result<BINRange, ConfigurationProblemText>) -> String {
        switch result {
        case .success(let range): "ok \(range.low)-\(range.high)"
        case .failure: "refused"
        }
    }

    /// The documented rule, over the value's Unicode scalars.
    static func oracle(_ value: String) -> String {
        func prefix(_ part: Substring) -> Bool {
            (6...11).contains(part.unicodeScalars.count) && part.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
        }
        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
        switch parts.count {
        case 1 where prefix(parts[0]): return "ok \(value)-\(value)"
        case 2 where prefix(parts[0]) && prefix(parts[1]) && parts[0].count == parts[1].count && parts[0] <= parts[1]:
            return "ok \(parts[0])-\(parts[1])"
        default: return "refused"
        }
    }

    @Test("chosen values, well-formed and not")
    func chosen() {
        let values = [
            "44000000-44009999", "510510", "12345678901", "123456789012", "12345", "44009999-44000000",
            "440000-4400999",
            "4400-0099", "44000000-", "-44000000", "44000000--44009999", "4400000a-44009999", "44 000000", "٤٤٠٠٠٠",
            "440000-440000-440000", "", "-", "00000000000-99999999999", "440000\u{301}", "１２３４５６",
        ]
        for value in values {
            #expect(Self.outcome(BINRange.parse(value)) == Self.oracle(value), "\(value)")
        }
        #expect(Self.outcome(BINRange.parse("44000000-44009999")) == "ok 44000000-44009999")
        #expect(Self.outcome(BINRange.parse("510510")) == "ok 510510-510510")
    }

    @Test("the router's check of a range it is given agrees with the parser on the range's text")
    func routerCheck() {
        var generator = SeededGenerator(state: 13)
        let pieces = ["0", "4", "9", "-", "a", "٣", "44000", "510510", "0\u{301}"]
        for _ in 0..<5_000 {
            func part() -> String {
                (0..<Int.random(in: 0...14, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                    .joined()
            }
            let low = part()
            let range = BINRange(low: low, high: Bool.random(using: &generator) ? low : part())
            #expect(
                (range.paddedIfValid != nil) == (Self.oracle(range.description) != "refused"),
                "\(range.low) \(range.high)")
        }
        #expect(BINRange(low: "44000000", high: "44009999").paddedIfValid?.low == 44_000_000_000)
        #expect(BINRange(low: "44009999", high: "44000000").paddedIfValid == nil)
    }

    @Test("generated values from digits, dashes and a few other characters")
    func generated() {
        var generator = SeededGenerator(state: 11)
        let pieces = ["0", "1", "4", "5", "9", "-", "a", " ", "٣", "44000", "510510"]
        for _ in 0..<5_000 {
            let value = (0..<Int.random(in: 0...26, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }.joined()
            #expect(Self.outcome(BINRange.parse(value)) == Self.oracle(value), "\(value)")
        }
        for _ in 0..<2_000 {
            let length = Int.random(in: 5...12, using: &generator)
            let low = String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            let high = String(
                (0..<Int.random(in: length - 1...length + 1, using: &generator)).map { _ in
                    Character(String(Int.random(in: 0...9, using: &generator)))
                })
            for value in [low, "\(low)-\(high)", "\(low)-\(low)"] {
                #expect(
                    Self.outcome(BINRange.parse(value)) == Self.oracle(value), "\(value)")
            }
        }
    }
}
