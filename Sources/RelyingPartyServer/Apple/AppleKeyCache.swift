import AppleSignIn
import CryptoCore
import Foundation
import Observability
import Synchronization

/// Apple's JWKS, fetched in the background and cached until it expires (`Cache-Control: max-age`, else an hour).
/// A request never waits for Apple: `keys` answers from the cache at once, or fails fast with `503 apple_unavailable`
/// and starts a fetch. Keys are refreshed ahead of expiry (from three quarters of their lifetime on, by the Apple
/// worker's rounds and by requests); a token naming an unknown `kid` starts a refresh at most once a minute. After a
/// failed fetch, the next waits `failureBackoff`. One fetch is in flight at a time; no lock is held across I/O (the
/// fetch goes through the outbound client's completion API, whose completion updates the cache).
final class AppleKeyCache: Sendable {
    static let defaultLifetime: TimeInterval = 3600
    static let minimumLifetime: TimeInterval = 60
    static let maximumLifetime: TimeInterval = 86_400
    /// The shortest interval between two fetches triggered by unknown key IDs.
    static let minimumRefreshInterval: TimeInterval = 60
    /// How long after a failed fetch the next may start.
    static let failureBackoff: TimeInterval = 5
    /// The part of the keys' lifetime after which they are refreshed ahead of expiry.
    static let refreshAhead = 0.75

    private struct State {
        var keys: JSONWebKeySet?
        var refreshAt = Date.distantPast
        var expiresAt = Date.distantPast
        var lastFetch: Date?
        var lastFailure: Date?
        var fetching = false
        /// Bumped by every completed fetch (tests wait on it).
        var generation = 0
    }

    private let state = Mutex(State())
    /// Fetches of Apple's keys, and those that failed (for the metrics).
    private let fetches = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    private let service: any AppleService
    private let time: any TimeSource
    private let log: Logger

    init(service: any AppleService, time: any TimeSource, log: Logger) {
        self.service = service
        self.time = time
        self.log = log
    }

    /// Key fetches so far, and those that failed.
    var fetchCounts: (fetches: Int, failures: Int) {
        (fetches.load(ordering: .relaxed), failures.load(ordering: .relaxed))
    }

    /// Unexpired keys; without them `503 apple_unavailable` at once, with a fetch started in the background.
    func keys(now: Date) throws(ServerError) -> JSONWebKeySet {
        let (keys, start) = state.withLock { state -> (JSONWebKeySet?, Bool) in
            let keys = now < state.expiresAt ? state.keys : nil
            return (keys, now >= state.refreshAt && Self.mayStart(&state, now: now))
        }
        if start { fetch() }
        guard let keys else { throw ServerError(.appleUnavailable) }
        return keys
    }

    /// After a token named a key the cached set lacks: starts a refresh unless the last fetch began under a minute
    /// ago. Returns whether it started one (the request then fails with 503 and its retry meets the new keys).
    func refreshForUnknownKey(now: Date) -> Bool {
        let start = state.withLock { state -> Bool in
            if let last = state.lastFetch, now.timeIntervalSince(last) < Self.minimumRefreshInterval, now >= last { return false }
            return Self.mayStart(&state, now: now)
        }
        if start { fetch() }
        return start
    }

    /// Starts a fetch when the keys are due for refresh or missing (the worker's rounds, start-up).
    func refreshIfDue() {
        let now = time.now
        let start = state.withLock { state in now >= state.refreshAt && Self.mayStart(&state, now: now) }
        if start { fetch() }
    }

    /// Whether keys are cached and unexpired at `now`, and how many fetches have completed (for tests).
    func status(now: Date) -> (cached: Bool, completedFetches: Int) {
        state.withLock { state in (state.keys != nil && now < state.expiresAt, state.generation) }
    }

    /// Claims the one fetch slot unless a fetch is in flight or the last one failed under `failureBackoff` ago.
    private static func mayStart(_ state: inout State, now: Date) -> Bool {
        guard !state.fetching else { return false }
        if let failure = state.lastFailure, now.timeIntervalSince(failure) < failureBackoff, now >= failure { return false }
        state.fetching = true
        state.lastFetch = now
        return true
    }

    private func fetch() {
        fetches.add(1, ordering: .relaxed)
        service.fetchKeys { [self] reply in finish(reply) }
    }

    private func finish(_ reply: AppleReply) {
        let now = time.now
        let keys: JSONWebKeySet?
        if reply.status != 200 {
            log.warning("apple keys: fetch failed (\(reply.status.map { "status \($0)" } ?? "unreachable"))", event: "apple")
            keys = nil
        } else {
            do {
                keys = try JSONWebKeySet(json: reply.body)
            } catch {
                log.warning("apple keys: fetch failed (\(error.code))", event: "apple")
                keys = nil
            }
        }
        let lifetime = reply.maximumAge.map { min(Self.maximumLifetime, max(Self.minimumLifetime, TimeInterval($0))) } ?? Self.defaultLifetime
        state.withLock { state in
            state.fetching = false
            state.generation += 1
            guard let keys else {
                failures.add(1, ordering: .relaxed)
                state.lastFailure = now
                return
            }
            state.keys = keys
            state.expiresAt = now.addingTimeInterval(lifetime)
            state.refreshAt = now.addingTimeInterval(lifetime * Self.refreshAhead)
            state.lastFailure = nil
        }
    }
}
