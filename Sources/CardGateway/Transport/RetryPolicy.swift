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

/// An HTTP date in the three forms RFC 9110 (section 5.6.7) has a recipient read: IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
/// (`Sun Nov  6 08:49:37 1994`), in GMT. Foundation's strict parse strategies, matched against the whole text.
enum HTTPDate {
    private static let posix = Locale(identifier: "en_US_POSIX")
    private static let imfFixdate = Date.ParseStrategy(
        format: """
            \(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .padded(4)) \
            \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\
            \(second: .twoDigits) GMT
            """, locale: posix, timeZone: .gmt, isLenient: false)
    private static let rfc850 = Date.ParseStrategy(
        format: """
            \(weekday: .wide), \(day: .twoDigits)-\(month: .abbreviated)-\(year: .twoDigits) \
            \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\
            \(second: .twoDigits) GMT
            """, locale: posix, timeZone: .gmt, isLenient: false)
    private static let asctime = Date.ParseStrategy(
        format: """
            \(weekday: .abbreviated) \(month: .abbreviated) \(day: .defaultDigits) \
            \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\
            \(second: .twoDigits) \(year: .padded(4))
            """, locale: posix, timeZone: .gmt, isLenient: false)

    static func parse(_ text: String) -> Date? {
        for strategy in [imfFixdate, rfc850, asctime] {
            if let match = text.wholeMatch(of: strategy) { return match.output }
        }
        return nil
    }
}
