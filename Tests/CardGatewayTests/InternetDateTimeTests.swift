@_spi(AdapterSupport) @testable import CardGateway
import Foundation
import SharedTestSupport
import Testing

/// `InternetDateTime`, the one RFC 3339 reader and writer: its answers are checked against fixed instants and against
/// Foundation's other reader, `ISO8601DateFormatter`.
@Suite("Timestamps: InternetDateTime reads and writes RFC 3339", .timeLimit(.minutes(5)))
struct InternetDateTimeTests {
    static func formatter(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }

    @Test("parse reads RFC 3339 with or without fractions, any offset, either case; format writes UTC")
    func parseAndFormat() {
        let read: [(String, Double)] = [
            ("2024-01-31T23:59:59Z", 1_706_745_599), ("2024-01-31t23:59:59z", 1_706_745_599),
            ("2024-01-31T23:59:59.5Z", 1_706_745_599.5), ("2024-02-01T00:59:59+01:00", 1_706_745_599),
            ("2024-01-31T18:29:59.250-05:30", 1_706_745_599.25), ("1970-01-01T00:00:00Z", 0),
        ]
        for (text, seconds) in read {
            #expect(InternetDateTime.parse(text) == Date(timeIntervalSince1970: seconds), "\(text)")
        }
        let refused = [
            "", "2024-01-31", "2024-01-31T23:59:59", "2024-01-31 23:59:59Z", "2024-01-31T23:59:59Zjunk",
            " 2024-01-31T23:59:59Z", "2024-01-31T23:59:59Z ", "2024-01-31T23:59:59.Z", "not a date",
        ]
        for text in refused { #expect(InternetDateTime.parse(text) == nil, "\(text)") }

        let date = Date(timeIntervalSince1970: 1_706_745_599.25)
        #expect(InternetDateTime.format(date) == "2024-01-31T23:59:59Z")
        #expect(InternetDateTime.format(date, fractionalSeconds: true) == "2024-01-31T23:59:59.250Z")
        #expect(InternetDateTime.parse(InternetDateTime.format(date, fractionalSeconds: true)) == date)
    }

    @Test("chosen timestamps read as ISO8601DateFormatter reads them; the whole-second name refuses fractions")
    func chosen() {
        let accepted = [
            "2024-01-31T23:59:59Z", "1970-01-01T00:00:00Z", "2000-02-29T12:00:00Z", "2024-06-01T08:30:00+01:00",
            "2024-06-01T08:30:00-05:30", "1600-03-01T00:00:00Z", "9999-12-31T23:59:59Z", "2023-12-31T23:30:00-01:00",
            "2024-01-01T00:00:00+18:00", "2024-01-01T00:00:00-18:00",
        ]
        for text in accepted {
            let date = InternetDateTime.parse(text)
            #expect(date != nil, "\(text)")
            #expect(date == Self.formatter(text), "\(text)")
        }
        let refused = [
            "2024-01-01 00:00:00Z", "2024-01-01", "", "２024-01-01T00:00:00Z", "2024-01-01T00:00:00",
            "2024-01-01T00:00:00Z\n", "T00:00:00Z",
        ]
        for text in refused { #expect(InternetDateTime.parse(text) == nil, "\(text)") }
    }

    @Test("generated timestamps in every month, with and without offsets: read as ISO8601DateFormatter reads them")
    func generated() {
        var generator = SeededGenerator(state: 23)
        for _ in 0..<3_000 {
            let year = Int.random(in: 1600...2400, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...28, using: &generator)
            let time = String(
                format: "%02d:%02d:%02d", Int.random(in: 0...23, using: &generator),
                Int.random(in: 0...59, using: &generator), Int.random(in: 0...59, using: &generator))
            let zone =
                Bool.random(using: &generator)
                ? "Z"
                : String(
                    format: "%@%02d:%02d", Bool.random(using: &generator) ? "+" : "-",
                    Int.random(in: 0...14, using: &generator), [0, 30, 45].randomElement(using: &generator)!)
            let text = String(format: "%04d-%02d-%02dT", year, month, day) + time + zone
            let date = InternetDateTime.parse(text)
            #expect(date != nil, "\(text)")
            #expect(date == Self.formatter(text), "\(text)")
            if let date { #expect(InternetDateTime.parse(InternetDateTime.format(date)) == date, "\(text)") }
        }
    }
}
