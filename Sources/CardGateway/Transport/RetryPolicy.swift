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

    /// Parses a `Retry-After` value: delta seconds or an HTTP date.
    public static func parseRetryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0, seconds.isFinite { return .milliseconds(Int64(seconds * 1000)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        let interval = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64(interval * 1000))
    }
}
