import AppleSignIn
import Foundation
import Observability
import Synchronization

/// Apple's JWKS, fetched at first use and cached until it expires (`Cache-Control: max-age`, else an hour).
/// A token naming an unknown `kid` may refresh it early, at most once a minute; after a failed fetch, further
/// fetches wait a few seconds so that an unreachable Apple does not stall every request. Fails closed: without
/// fresh keys, verification does not happen (`503 apple_unavailable`). One fetch runs at a time, under the lock:
/// requests arriving meanwhile wait for its result instead of fetching again.
final class AppleKeyCache: Sendable {
    static let defaultLifetime: TimeInterval = 3600
    static let minimumLifetime: TimeInterval = 60
    static let maximumLifetime: TimeInterval = 86_400
    /// The shortest interval between two fetches triggered by unknown key IDs.
    static let minimumRefreshInterval: TimeInterval = 60
    /// How long to answer 503 at once after a failed fetch.
    static let failureBackoff: TimeInterval = 5

    private struct State {
        var keys: JSONWebKeySet?
        var expiresAt = Date.distantPast
        var lastFetch: Date?
        var lastFailure: Date?
    }

    private let state = Mutex(State())
    /// Fetches of Apple's keys, and those that failed (for the metrics).
    private let fetches = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    private let service: any AppleService
    private let log: Logger

    init(service: any AppleService, log: Logger) {
        self.service = service
        self.log = log
    }

    /// Key fetches so far, and those that failed.
    var fetchCounts: (fetches: Int, failures: Int) {
        (fetches.load(ordering: .relaxed), failures.load(ordering: .relaxed))
    }

    /// Unexpired keys, fetching them when there are none.
    func keys(now: Date) throws(ServerError) -> JSONWebKeySet {
        try state.withLock { state throws(ServerError) -> JSONWebKeySet in
            if let keys = state.keys, now < state.expiresAt { return keys }
            return try fetch(&state, now: now)
        }
    }

    /// Fresh keys after a token named a key the cached set lacks, or nil when the last fetch was under a minute ago.
    func refreshForUnknownKey(now: Date) throws(ServerError) -> JSONWebKeySet? {
        try state.withLock { state throws(ServerError) -> JSONWebKeySet? in
            if let last = state.lastFetch, now.timeIntervalSince(last) < Self.minimumRefreshInterval, now >= last { return nil }
            return try fetch(&state, now: now)
        }
    }

    private func fetch(_ state: inout State, now: Date) throws(ServerError) -> JSONWebKeySet {
        if let failure = state.lastFailure, now.timeIntervalSince(failure) < Self.failureBackoff, now >= failure {
            throw ServerError(.appleUnavailable)
        }
        state.lastFetch = now
        fetches.add(1, ordering: .relaxed)
        let reply = service.fetchKeys()
        guard reply.status == 200 else {
            failures.add(1, ordering: .relaxed)
            state.lastFailure = now
            log.warning("apple keys: fetch failed (\(reply.status.map { "status \($0)" } ?? "unreachable"))", event: "apple")
            throw ServerError(.appleUnavailable)
        }
        let keys: JSONWebKeySet
        do {
            keys = try JSONWebKeySet(json: reply.body)
        } catch {
            failures.add(1, ordering: .relaxed)
            state.lastFailure = now
            log.warning("apple keys: fetch failed (\(error.code))", event: "apple")
            throw ServerError(.appleUnavailable)
        }
        let lifetime = reply.maximumAge.map { min(Self.maximumLifetime, max(Self.minimumLifetime, TimeInterval($0))) } ?? Self.defaultLifetime
        state.keys = keys
        state.expiresAt = now.addingTimeInterval(lifetime)
        state.lastFailure = nil
        return keys
    }
}
