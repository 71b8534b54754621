import Foundation
import Synchronization

/// Token buckets by key (client address, account): `capacity` requests at once, refilled at `perMinute`.
/// Bounded memory: when the table is full, buckets that have refilled completely are dropped first.
final class RateLimiter: Sendable {
    struct Rule: Sendable, Equatable {
        var perMinute: Double
        var burst: Double
    }

    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private let rule: Rule
    private let buckets = Mutex<[String: Bucket]>([:])
    private let maximumKeys: Int

    init(rule: Rule, maximumKeys: Int = 100_000) {
        self.rule = rule
        self.maximumKeys = maximumKeys
    }

    /// Takes one token for `key`; returns nil when allowed, or the seconds until a token is available.
    func take(_ key: String, now: Date) -> Int? {
        let rate = rule.perMinute / 60
        return buckets.withLock { buckets -> Int? in
            var bucket = buckets[key] ?? Bucket(tokens: rule.burst, updated: now)
            bucket.tokens = min(rule.burst, bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * rate)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            if buckets[key] == nil, buckets.count >= maximumKeys { Self.evict(&buckets, now: now, rule: rule) }
            buckets[key] = bucket
            return nil
        }
    }

    private static func evict(_ buckets: inout [String: Bucket], now: Date, rule: Rule) {
        let rate = rule.perMinute / 60
        let full = buckets.filter { $0.value.tokens + now.timeIntervalSince($0.value.updated) * rate >= rule.burst }.map(\.key)
        if full.isEmpty {
            buckets.removeAll(keepingCapacity: true)
        } else {
            for key in full { buckets.removeValue(forKey: key) }
        }
    }
}
