import CryptoCore
import Foundation
import Synchronization

/// A value another server publishes (an issuer's keys, its discovery document), fetched in the background and kept
/// until it expires: the schedule `AppleKeyCache` and `IssuerKeyCache` share. A request never waits for the other
/// server: `current` answers from the cache at once (nil when there is nothing unexpired) and starts a fetch when one
/// is due. The value is refreshed ahead of expiry (from `refreshAhead` of its lifetime on); a token naming an unknown
/// key starts a refresh at most once every `minimumRefreshInterval`; after a failed fetch the next waits
/// `failureBackoff`. One fetch is in flight at a time, and no lock is held across it: `fetch` is handed a completion
/// that it calls once, from any thread, with the value (nil when the fetch failed) and its lifetime from the answer.
package final class BackgroundRefresh<Value: Sendable>: Sendable {
    package typealias Completion = @Sendable (_ value: Value?, _ lifetime: TimeInterval?) -> Void
    package typealias Fetch = @Sendable (_ completion: @escaping Completion) -> Void

    package static var defaultLifetime: TimeInterval { 3600 }
    package static var minimumLifetime: TimeInterval { 60 }
    package static var maximumLifetime: TimeInterval { 86_400 }
    /// The shortest interval between two fetches triggered by unknown key IDs.
    package static var minimumRefreshInterval: TimeInterval { 60 }
    /// How long after a failed fetch the next may start.
    package static var failureBackoff: TimeInterval { 5 }
    /// The part of the value's lifetime after which it is refreshed ahead of expiry.
    package static var refreshAhead: Double { 0.75 }

    private struct State {
        package var value: Value?
        package var refreshAt = Date.distantPast
        package var expiresAt = Date.distantPast
        package var lastFetch: Date?
        package var lastFailure: Date?
        package var fetching = false
        /// Bumped by every completed fetch (tests wait on it).
        package var generation = 0
    }

    private let state = Mutex(State())
    private let fetches = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    private let time: any TimeSource
    private let fetch: Fetch

    package init(time: any TimeSource, fetch: @escaping Fetch) {
        self.time = time
        self.fetch = fetch
    }

    /// Fetches started so far, and those that failed (for the metrics).
    package var fetchCounts: (fetches: Int, failures: Int) {
        (fetches.load(ordering: .relaxed), failures.load(ordering: .relaxed))
    }

    /// The unexpired value, or nil; either way a fetch starts when one is due.
    package func current(now: Date) -> Value? {
        let (value, start) = state.withLock { state -> (Value?, Bool) in
            (now < state.expiresAt ? state.value : nil, now >= state.refreshAt && Self.mayStart(&state, now: now))
        }
        if start { startFetch() }
        return value
    }

    /// After a token named a key the cached value lacks: starts a refresh unless the last fetch began under
    /// `minimumRefreshInterval` ago. Returns whether it started one (the request then fails with 503 and its retry
    /// meets the new keys).
    package func refreshForUnknownKey(now: Date) -> Bool {
        let start = state.withLock { state -> Bool in
            if let last = state.lastFetch, now.timeIntervalSince(last) < Self.minimumRefreshInterval, now >= last { return false }
            return Self.mayStart(&state, now: now)
        }
        if start { startFetch() }
        return start
    }

    /// Starts a fetch when the value is due for refresh or missing (a worker's rounds, start-up).
    package func refreshIfDue() {
        let now = time.now
        let start = state.withLock { state in now >= state.refreshAt && Self.mayStart(&state, now: now) }
        if start { startFetch() }
    }

    /// Whether a value is cached and unexpired at `now`, and how many fetches have completed (for tests).
    package func status(now: Date) -> (cached: Bool, completedFetches: Int) {
        state.withLock { state in (state.value != nil && now < state.expiresAt, state.generation) }
    }

    /// Claims the one fetch slot unless a fetch is in flight or the last one failed under `failureBackoff` ago.
    private static func mayStart(_ state: inout State, now: Date) -> Bool {
        guard !state.fetching else { return false }
        if let failure = state.lastFailure, now.timeIntervalSince(failure) < failureBackoff, now >= failure { return false }
        state.fetching = true
        state.lastFetch = now
        return true
    }

    private func startFetch() {
        fetches.add(1, ordering: .relaxed)
        fetch { [self] value, lifetime in finish(value, lifetime: lifetime) }
    }

    private func finish(_ value: Value?, lifetime: TimeInterval?) {
        let now = time.now
        let lifetime = lifetime.map { min(Self.maximumLifetime, max(Self.minimumLifetime, $0)) } ?? Self.defaultLifetime
        state.withLock { state in
            state.fetching = false
            state.generation += 1
            guard let value else {
                failures.add(1, ordering: .relaxed)
                state.lastFailure = now
                return
            }
            state.value = value
            state.expiresAt = now.addingTimeInterval(lifetime)
            state.refreshAt = now.addingTimeInterval(lifetime * Self.refreshAhead)
            state.lastFailure = nil
        }
    }
}
