import Foundation

/// Dates as the simulators write and read them, through Foundation's `Date.ISO8601FormatStyle`: the one date helper
/// of the simulation kit and every simulator (the core's `InternetDateTime` is the adapters' one; the kit does not
/// depend on the core). Each provider's published form is one call, so a simulator keeps its provider's exact format:
///
/// - `format(date)`: `2024-01-31T23:59:59Z`
/// - `format(date, fraction: .milliseconds)`: `2024-01-31T23:59:59.123Z`
/// - `format(date, fraction: .microseconds)`: `2024-01-31T23:59:59.123456Z`
/// - `format(date, timeZone: TimeZone(secondsFromGMT: 3600)!)`: `2024-02-01T00:59:59+01:00`
/// - `formatWithoutZone(date, fraction: .microseconds)`: `2024-01-31T23:59:59.123456` (UTC, no zone designator)
/// - `formatWithoutZone(date, separator: " ")`: `2024-01-31 23:59:59`
/// - `fullDate(date)`: `2024-01-31`
public enum SimulatorDateTime: Sendable {
    /// The fractional seconds a provider writes.
    public enum Fraction: Sendable {
        /// None: `23:59:59`.
        case none
        /// Three digits, `23:59:59.123` (Foundation's: the instant truncated to the millisecond).
        case milliseconds
        /// Six digits, `23:59:59.123456` (the instant rounded to the microsecond, at most `.999999`).
        case microseconds
    }

    /// `date` as an RFC 3339 date-time: in UTC with `Z`, or in `timeZone` with its offset (`+01:00`).
    /// - Parameters:
    ///   - date: The instant.
    ///   - fraction: The fractional seconds written.
    ///   - timeZone: The zone the date-time is written in; UTC (`.gmt`) writes `Z`.
    public static func format(_ date: Date, fraction: Fraction = .none, timeZone: TimeZone = .gmt) -> String {
        switch fraction {
        case .none:
            return self.style(fractionalSeconds: false, timeZone: timeZone).format(date)
        case .milliseconds:
            return self.style(fractionalSeconds: true, timeZone: timeZone).format(date)
        case .microseconds:
            let whole = date.timeIntervalSince1970.rounded(.down)
            let micros = min(Int(((date.timeIntervalSince1970 - whole) * 1_000_000).rounded()), 999_999)
            let text = self.style(fractionalSeconds: false, timeZone: timeZone).format(
                Date(timeIntervalSince1970: whole))
            // The seconds end eight characters after the `T` (`HH:mm:ss`); the zone designator follows them.
            guard let time = text.firstIndex(of: "T") else { return text }
            let secondsEnd = text.index(time, offsetBy: 9)
            return text[..<secondsEnd] + String(format: ".%06d", micros) + text[secondsEnd...]
        }
    }

    /// `date` in UTC without a zone designator, as some providers publish their timestamps: Lithic's tokenizations
    /// (`2023-08-28T15:57:14.578051`) and Trust Payments' responses (`2024-01-31 23:59:59`, `separator: " "`).
    /// - Parameters:
    ///   - date: The instant.
    ///   - fraction: The fractional seconds written.
    ///   - separator: What stands between the date and the time.
    public static func formatWithoutZone(_ date: Date, fraction: Fraction = .none, separator: String = "T") -> String {
        let text = self.format(date, fraction: fraction).dropLast()  // the `Z`
        return text.replacingOccurrences(of: "T", with: separator)
    }

    /// The RFC 3339 `full-date` of `date` in UTC: `2024-01-31`.
    public static func fullDate(_ date: Date) -> String {
        Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().format(date)
    }

    /// The instant an RFC 3339 date-time names (`2024-01-31T23:59:59Z`, `2024-01-31T23:59:59.123456+01:00`): with or
    /// without fractional seconds, `Z` or any offset, `T` and `Z` in either case (RFC 3339 section 5.6), as the core's
    /// `InternetDateTime.parse` reads them. Nil when the whole text is not one.
    public static func parse(_ text: String) -> Date? {
        let text = text.uppercased()
        for style in [self.withFraction, self.wholeSeconds] {
            if let match = text.wholeMatch(of: style) { return match.output }
        }
        return nil
    }

    private static let wholeSeconds = Date.ISO8601FormatStyle()
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private static func style(fractionalSeconds: Bool, timeZone: TimeZone) -> Date.ISO8601FormatStyle {
        if timeZone == .gmt { return fractionalSeconds ? self.withFraction : self.wholeSeconds }
        return Date.ISO8601FormatStyle(
            timeZoneSeparator: .colon, includingFractionalSeconds: fractionalSeconds, timeZone: timeZone)
    }
}
