import Foundation

/// When and how long to wait before repeating a request.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included. 1 disables retries.
    public var maxAttempts: Int
    /// The backoff base: attempt n waits a random time in [0, min(maxDelay, baseDelay × 2ⁿ⁻¹)] (full jitter).
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// The longest `Retry-After` honoured; a longer one ends the retries and the caller sees the error.
    public var maxRetryAfter: Duration
    /// Statuses that may be repeated when the request is safe to repeat.
    public var retryableStatuses: Set<Int>

    public init(
        maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(4),
        maxRetryAfter: Duration = .seconds(30), retryableStatuses: Set<Int> = [408, 409, 425, 429, 500, 502, 503, 504]
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.retryableStatuses = retryableStatuses
    }

    public static let `default` = RetryPolicy()
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The full-jitter backoff before attempt `attempt + 1` (attempt counts from 1).
    public func backoff(afterAttempt attempt: Int, random: Double) -> Duration {
        let exponent = min(attempt - 1, 30)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        return ceiling * min(max(random, 0), 1)
    }

    /// The longest `Retry-After` that is parsed at all; anything longer is read as this (one day).
    public static let retryAfterCeiling: Int64 = 86_400

    /// Parses a `Retry-After` value: delta seconds (digits only, as RFC 9110 defines them) or an HTTP date.
    /// Values beyond a day are clamped to a day, so an absurd header can never overflow; the caller's
    /// `maxRetryAfter` then decides whether to wait at all.
    public static func parseRetryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if trimmed.unicodeScalars.allSatisfy({ $0.value >= 0x30 && $0.value <= 0x39 }) {
            // Leading zeros and huge digit strings alike: anything longer than the ceiling's width is over it.
            let digits = trimmed.drop(while: { $0 == "0" })
            guard digits.count <= 6, let seconds = Int64(digits.isEmpty ? "0" : String(digits)) else {
                return .seconds(retryAfterCeiling)
            }
            return .seconds(min(seconds, retryAfterCeiling))
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        let interval = date.timeIntervalSince(now)
        guard interval.isFinite, interval > 0 else { return .zero }
        return .milliseconds(Int64(min(interval, Double(retryAfterCeiling)) * 1000))
    }
}

/// RFC 9110's preferred HTTP date, IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), parsed by arithmetic: no
/// formatter or calendar is built per call, and nothing is shared between threads.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays: Set<Substring> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    static func parse(_ text: String) -> Date? {
        // "Sun, 06 Nov 1994 08:49:37 GMT": six space-separated parts.
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].last == ",", weekdays.contains(parts[0].dropLast()),
            parts[5] == "GMT",
            parts[1].count == 2, let day = Int(parts[1]), (1...31).contains(day),
            let monthIndex = months.firstIndex(where: { $0 == parts[2] }),
            parts[3].count == 4, let year = Int(parts[3]), year >= 1970
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
