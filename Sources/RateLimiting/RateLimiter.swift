import Foundation
import Synchronization

/// Token buckets by key (client address, credential): `burst` requests at once, refilled at `perMinute`.
///
/// Fixed capacity: the table never holds more than `capacity` keys, whatever a flood of unique keys does. When a new
/// key finds it full, every idle bucket (refilled completely: it limits nothing) is dropped; when that frees less than
/// a quarter of the table, the buckets used least recently are dropped until a quarter is free. Each sweep costs
/// O(n log n) and is followed by at least n/4 inserts, so a key costs O(log n) amortised.
package final class RateLimiter: Sendable {
    package struct Rule: Sendable, Equatable {
        package var perMinute: Double
        package var burst: Double

        package init(perMinute: Double, burst: Double) {
            self.perMinute = perMinute
            self.burst = burst
        }
    }

    private struct Bucket {
        package var tokens: Double
        package var updated: Date
    }

    private let rule: Rule
    private let buckets = Mutex<[String: Bucket]>([:])
    package let capacity: Int

    package init(rule: Rule, capacity: Int = 100_000) {
        self.rule = rule
        self.capacity = max(4, capacity)
    }

    /// Takes one token for `key`; returns nil when allowed, or the seconds until a token is available.
    package func take(_ key: String, now: Date) -> Int? {
        let rate = rule.perMinute / 60
        return buckets.withLock { buckets -> Int? in
            if buckets[key] == nil, buckets.count >= capacity { evict(&buckets, now: now) }
            var bucket = buckets[key] ?? Bucket(tokens: rule.burst, updated: now)
            bucket.tokens = min(rule.burst, bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * rate)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            return nil
        }
    }

    /// How many keys the table holds (for tests).
    package var count: Int { buckets.withLock { $0.count } }

    private func evict(_ buckets: inout [String: Bucket], now: Date) {
        let rate = rule.perMinute / 60
        buckets = buckets.filter { $0.value.tokens + max(0, now.timeIntervalSince($0.value.updated)) * rate < rule.burst }
        let target = capacity - capacity / 4
        guard buckets.count > target else { return }
        for (key, _) in buckets.sorted(by: { $0.value.updated < $1.value.updated }).prefix(buckets.count - target) {
            buckets.removeValue(forKey: key)
        }
    }
}
