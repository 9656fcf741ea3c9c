import Foundation
import Synchronization

/// Token buckets keyed by user or client address, in this process: each key may spend `perMinute` tokens a minute,
/// refilled continuously, with a burst of one minute's allowance. Memory is bounded: at most `maxKeys` buckets are
/// kept; full buckets (keys idle long enough to have refilled) are dropped first, and when none is full the bucket
/// used longest ago goes.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let perMinute: Int
    let maxKeys: Int
    private let buckets = Mutex<[String: Bucket]>([:])
    private let now: @Sendable () -> ContinuousClock.Instant

    /// - Parameters:
    ///   - perMinute: tokens a key may spend a minute (at least 1).
    ///   - maxKeys: the most buckets kept at once.
    ///   - now: the clock (injectable for tests).
    init(perMinute: Int, maxKeys: Int = 100_000, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.perMinute = max(1, perMinute)
        self.maxKeys = max(1, maxKeys)
        self.now = now
    }

    private var capacity: Double { Double(perMinute) }
    private var perSecond: Double { Double(perMinute) / 60 }

    /// Spends `cost` tokens of `key`'s bucket. Returns nil when they were there, else how long until they will be
    /// (and spends nothing).
    func spend(_ key: String, cost: Double = 1) -> Duration? {
        let now = self.now()
        let capacity = self.capacity
        let perSecond = self.perSecond
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: now)
            let elapsed = (now - bucket.updated).timeInterval
            bucket.tokens = min(capacity, bucket.tokens + max(0, elapsed) * perSecond)
            bucket.updated = now
            guard bucket.tokens >= cost else {
                buckets[key] = bucket
                return .milliseconds(Int64(((cost - bucket.tokens) / perSecond * 1000).rounded(.up)))
            }
            bucket.tokens -= cost
            if buckets[key] == nil, buckets.count >= maxKeys {
                Self.evict(&buckets, maxKeys: maxKeys, now: now, capacity: capacity, perSecond: perSecond)
            }
            buckets[key] = bucket
            return nil
        }
    }

    /// The buckets kept now.
    var count: Int { buckets.withLock { $0.count } }

    private static func evict(
        _ buckets: inout [String: Bucket], maxKeys: Int, now: ContinuousClock.Instant, capacity: Double,
        perSecond: Double
    ) {
        // A bucket that has refilled is the same as no bucket: dropping it changes nothing.
        buckets = buckets.filter { _, bucket in
            bucket.tokens + (now - bucket.updated).timeInterval * perSecond < capacity
        }
        if buckets.count >= maxKeys, let oldest = buckets.min(by: { $0.value.updated < $1.value.updated })?.key {
            buckets.removeValue(forKey: oldest)
        }
    }
}
