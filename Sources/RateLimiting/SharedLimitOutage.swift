import Foundation
import Observability
import Storage
import Synchronization

/// Whether the shared limit buckets (`SharedLimitStore`) are unusable, for every limiter of a node at once: after a
/// failed draw each node decides alone, by its own limits, for `retrySeconds` before it asks the database again, so a
/// database that is down or frozen costs one request's deadline every few seconds, not every request's. The first
/// failure of an outage and the recovery are logged once each; each request decided alone is counted.
package final class SharedLimitOutage: Sendable {
    /// How long after a failed draw the node decides alone before it tries the database again.
    package static let retrySeconds: TimeInterval = 5

    private struct State {
        package var retryAt = Date.distantPast
        package var logged = false
    }

    private let state = Mutex(State())
    private let log: Logger
    /// `passkeyd_rate_limit_fallbacks_total{rule}` (nil without metrics).
    private let fallbacks: MetricFamily<Counter>?

    package init(log: Logger, fallbacks: MetricFamily<Counter>?) {
        self.log = log
        self.fallbacks = fallbacks
    }

    /// Whether a draw should be skipped at `now`; a skipped draw is counted against `rule`.
    package func skips(_ rule: String, now: Date) -> Bool {
        guard state.withLock({ now < $0.retryAt }) else { return false }
        fallbacks?.increment([rule])
        return true
    }

    /// A draw for `rule` failed with `error`: the node decides alone until `retrySeconds` from `now`.
    package func failed(_ rule: String, _ error: StorageError, now: Date) {
        let first = state.withLock { state in
            state.retryAt = now.addingTimeInterval(Self.retrySeconds)
            defer { state.logged = true }
            return !state.logged
        }
        fallbacks?.increment([rule])
        guard first else { return }
        log.warning(
            "shared rate limits unavailable (\(error.code)): each node applies its own limits until the database answers",
            event: "rate_limits"
        )
    }

    /// A draw succeeded: the outage, if any, is over.
    package func succeeded() {
        let wasLogged = state.withLock { state in
            defer { state.logged = false }
            return state.logged
        }
        guard wasLogged else { return }
        log("shared rate limits available again", event: "rate_limits")
    }
}
