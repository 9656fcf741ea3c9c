@_spi(AdapterSupport) @testable import CardGateway
import Foundation
import SharedTestSupport
import Testing

/// `InternetDateTime.parseWholeSeconds` replaces a date formatter for the usual timestamp form; wherever it answers,
/// its answer must be the formatters' exactly, and it must refuse what they refuse.
@Suite("Timestamps: the whole-second RFC 3339 reader agrees with Foundation's formatters", .timeLimit(.minutes(5)))
struct InternetDateTimeTests {
    static func formatter(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }
    static func formatStyle(_ text: String) -> Date? { try? Date(text, strategy: Date.ISO8601FormatStyle()) }

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

    @Test("chosen timestamps")
    func chosen() {
        let accepted = [
            "2024-01-31T23:59:59Z", "1970-01-01T00:00:00Z", "2000-02-29T12:00:00Z", "2024-06-01T08:30:00+01:00",
            "2024-06-01T08:30:00-05:30", "1600-03-01T00:00:00Z", "9999-12-31T23:59:59Z", "2023-12-31T23:30:00-01:00",
            "2024-01-01T00:00:00+18:00", "2024-01-01T00:00:00-18:00",
        ]
        for text in accepted {
            let date = InternetDateTime.parseWholeSeconds(text)
            #expect(date != nil, "\(text)")
            #expect(date == Self.formatter(text), "\(text)")
            #expect(date == Self.formatStyle(text), "\(text)")
        }
        #expect(
            InternetDateTime.parseWholeSeconds("2024-01-31T23:59:59Z") == Date(timeIntervalSince1970: 1_706_745_599))
        let refused = [
            "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-04-31T00:00:00Z", "2024-01-01T24:00:00Z",
            "2024-01-01T00:60:00Z", "2024-01-01T00:00:60Z", "2024-01-01T00:00:00.123Z", "2024-01-01 00:00:00Z",
            "2024-01-01T00:00:00z", "2024-01-01T00:00:00+0100", "2024-01-01T00:00:00+24:00", "2024-01-01", "",
            "1500-01-01T00:00:00Z", "２024-01-01T00:00:00Z", "2024-01-01T00:00:00+01:60",
            // Past 9999 or before 1600 in UTC, where the two formatters disagree (the fuzz target's first finding).
            "9999-12-31T23:59:59-23:59", "1600-01-01T00:00:00+00:01",
            // Offsets beyond ±18:00, which Date.ISO8601FormatStyle refuses and ISO8601DateFormatter reads.
            "2024-01-01T00:00:00+18:01", "2024-01-01T00:00:00-18:01", "1895-11-17T18:49:52+19:54",
        ]
        for text in refused { #expect(InternetDateTime.parseWholeSeconds(text) == nil, "\(text)") }
    }

    @Test("generated timestamps in every month, with and without offsets, against both formatters")
    func generated() {
        var generator = SeededGenerator(state: 23)
        for _ in 0..<3_000 {
            let year = Int.random(in: 1600...2400, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...31, using: &generator)
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
            let date = InternetDateTime.parseWholeSeconds(text)
            if day <= InternetDateTime.daysIn(month: month, year: year) {
                #expect(date != nil, "\(text)")
                #expect(date == Self.formatter(text), "\(text)")
            } else {
                #expect(date == nil, "\(text)")
            }
            if let date { #expect(date == Self.formatStyle(text), "\(text)") }
        }
    }
}
