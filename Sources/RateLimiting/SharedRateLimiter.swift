import CryptoCore
import Foundation
import Storage
import Synchronization

/// A rate limit that every node on one database enforces together (issue 42): ten nodes let ten times the budget
/// through while each counted alone.
///
/// Each request first takes a token of the node's own `RateLimiter` (the same rule, in memory: one node never lets
/// more through than the whole deployment may). With a `SharedLimitStore`, it then spends a token this node holds for
/// its key, or draws `chunk` more from the key's shared bucket and keeps the rest for `holdSeconds`: a database write,
/// which the node's requests drawing at once share (`SharedLimitDrawQueue`). Every token spent was taken from the
/// shared bucket, so the nodes together stay within the budget; what they lose is the tokens held and unspent, at most
/// `chunk - 1` per node and key, which `chunk` keeps under 10 % of the burst for `rateLimits.nodes` nodes (a chunk of
/// one for small budgets such as failed sign-ins, whose every request draws). When the database fails, the node's own
/// limit decides (`SharedLimitOutage`).
package final class SharedRateLimiter: Sendable {
    /// How long drawn tokens stay spendable: tokens taken while the bucket was full must not add to a refilled one.
    package static let holdSeconds: TimeInterval = 10

    private struct Held {
        package var tokens: Int
        package var until: Date
    }

    /// The node's own limit: the fast path, and the whole limit when the shared buckets are unusable.
    package let local: RateLimiter
    private let rule: RateLimiter.Rule
    /// The limit's name in the shared buckets and the metrics (`RequestLimits.Rule`).
    private let name: String
    private let draws: SharedLimitDrawQueue?
    private let outage: SharedLimitOutage
    /// Tokens drawn at a time: a tenth of the burst shared by `nodes` nodes, at least one.
    package let chunk: Int
    private let held = Mutex<[String: Held]>([:])

    package init(name: String, rule: RateLimiter.Rule, capacity: Int, nodes: Int, shared: (any SharedLimitStore)?, outage: SharedLimitOutage) {
        local = RateLimiter(rule: rule, capacity: capacity)
        self.rule = rule
        self.name = name
        draws = shared.map { SharedLimitDrawQueue(store: $0, limit: name, perSecond: rule.perMinute / 60, burst: rule.burst) }
        self.outage = outage
        chunk = max(1, Int(rule.burst / Double(10 * max(1, nodes))))
    }

    /// Takes one token for `key`; returns nil when allowed, or the seconds until a token is available. `locally`: the
    /// node's own limit only, with no database call (for a request answered on the event loop).
    package func take(_ key: String, now: Date, locally: Bool = false) -> Int? {
        if let retryAfter = local.take(key, now: now) { return retryAfter }
        guard !locally, let draws, !outage.skips(name, now: now) else { return nil }
        if spendHeld(key, now: now) { return nil }
        let drawn: (taken: Int, left: Double)
        do throws(StorageError) {
            drawn = try draws.draw(key: DigestAlgorithm.sha256.hash(Array(key.utf8)), count: chunk, now: now)
        } catch {
            outage.failed(name, error, now: now)
            return nil
        }
        outage.succeeded()
        guard drawn.taken > 0 else { return max(1, Int(((1 - drawn.left) / (rule.perMinute / 60)).rounded(.up))) }
        if drawn.taken > 1 { keep(drawn.taken - 1, for: key, now: now) }
        return nil
    }

    /// How many keys the node's own table holds (for tests).
    package var count: Int { local.count }

    private func spendHeld(_ key: String, now: Date) -> Bool {
        held.withLock { held in
            guard var entry = held[key] else { return false }
            guard entry.until > now, entry.tokens > 0 else {
                held.removeValue(forKey: key)
                return false
            }
            entry.tokens -= 1
            held[key] = entry.tokens > 0 ? entry : nil
            return true
        }
    }

    /// Keeps `tokens` for `key`. The table is bounded like the node's own: when full, expired entries are dropped,
    /// then every entry (dropping tokens only refuses sooner).
    private func keep(_ tokens: Int, for key: String, now: Date) {
        held.withLock { held in
            if held[key] == nil, held.count >= local.capacity {
                held = held.filter { $0.value.until > now }
                if held.count >= local.capacity { held.removeAll() }
            }
            held[key] = Held(tokens: tokens, until: now.addingTimeInterval(Self.holdSeconds))
        }
    }
}
