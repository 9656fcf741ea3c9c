import Foundation

/// RFC 3339 timestamps in their most common form, read without a date formatter.
///
/// Providers send times as `2024-01-31T23:59:59Z` or `2024-01-31T23:59:59+01:00`. Foundation's
/// `ISO8601DateFormatter` and `Date.ISO8601FormatStyle` read them through ICU, at tens of microseconds a call (most
/// of a Paysafe card lookup). ``parseWholeSeconds(_:)`` reads exactly that form — a four-digit year from 1600 on (ICU
/// counts earlier dates in the Julian calendar), a valid calendar date, a 24-hour time without leap seconds or
/// fractions, `Z` or a `±HH:MM` offset up to ±18:00, naming an instant within years 1600…9999 in UTC — and returns
/// nil for anything else, so that the caller's formatter decides everything it does not read (fractions included,
/// whose rounding stays the formatter's). For the form it reads it gives the formatters' answers exactly
/// (InternetDateTimeTests, and the `internet-date-time` fuzz target).
@_spi(AdapterSupport) public enum InternetDateTime: Sendable {
    /// The instant an RFC 3339 date-time names (`2024-01-31T23:59:59Z`, `2024-01-31T23:59:59.123456+01:00`): with or
    /// without fractional seconds, `Z` or any offset, `T` and `Z` in either case (RFC 3339 section 5.6). Nil when the
    /// whole text is not one. Read by Foundation's `Date.ISO8601FormatStyle`.
    public static func parse(_ text: String) -> Date? {
        let text = text.uppercased()
        for style in [withFraction, wholeSeconds] {
            if let match = text.wholeMatch(of: style) { return match.output }
        }
        return nil
    }

    /// `date` as an RFC 3339 date-time in UTC: `2024-01-31T23:59:59Z`, or with `fractionalSeconds`
    /// `2024-01-31T23:59:59.123Z` (milliseconds).
    public static func format(_ date: Date, fractionalSeconds: Bool = false) -> String {
        (fractionalSeconds ? withFraction : wholeSeconds).format(date)
    }

    private static let wholeSeconds = Date.ISO8601FormatStyle()
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The instant `text` names, or nil when it is not `YYYY-MM-DDTHH:MM:SS` followed by `Z` or `±HH:MM`.
    public static func parseWholeSeconds(_ text: String) -> Date? {
        var text = text
        // The string's contiguous UTF-8 (`withUTF8` copies only a bridged string), read within bounds.
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 20 || bytes.count == 25 else { return nil }
            func number(_ start: Int, _ length: Int) -> Int? {
                var value = 0
                for index in start..<(start + length) {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit <= 9 else { return nil }
                    value = value * 10 + Int(digit)
                }
                return value
            }
            guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
                hour <= 23, minute <= 59, second <= 59, year >= 1600
            else { return nil }
            var offset = 0
            if bytes.count == 20 {
                guard bytes[19] == UInt8(ascii: "Z") else { return nil }
            } else {
                let sign = bytes[19]
                guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), bytes[22] == UInt8(ascii: ":"),
                    let offsetHours = number(20, 2), let offsetMinutes = number(23, 2), offsetHours <= 23,
                    offsetMinutes <= 59
                else { return nil }
                offset = (offsetHours * 3_600 + offsetMinutes * 60) * (sign == UInt8(ascii: "+") ? 1 : -1)
                // Date.ISO8601FormatStyle refuses offsets beyond ±18:00 (Foundation's time zone bound), which
                // ISO8601DateFormatter reads: leave those to the caller's formatter (found by the fuzz target).
                guard abs(offset) <= 18 * 3_600 else { return nil }
            }
            let seconds =
                daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
                - offset
            // An offset can carry the instant out of years 1600…9999 in UTC, where the formatters disagree with each
            // other (`9999-12-31T23:59:59-23:59`: ISO8601DateFormatter reads it, Date.ISO8601FormatStyle does not;
            // found by the `internet-date-time` fuzz target): leave those to the caller's formatter.
            guard seconds >= Self.earliest, seconds <= Self.latest else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
    }

    /// 1600-01-01T00:00:00Z and 9999-12-31T23:59:59Z, in seconds since 1970.
    static let earliest = daysSince1970(year: 1600, month: 1, day: 1) * 86_400
    static let latest = daysSince1970(year: 9999, month: 12, day: 31) * 86_400 + 86_399

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date in the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
