import AppleSignIn
import BackgroundWork
import CryptoCore
import Foundation
import HTTPEdge
import Observability

/// Apple's JWKS, on the shared background schedule (`BackgroundRefresh`: cached until it expires by
/// `Cache-Control: max-age`, else an hour; refreshed ahead of expiry by the Apple worker's rounds and by requests; an
/// unknown `kid` refreshes at most once a minute). A request never waits for Apple: `keys` answers from the cache at
/// once, or fails fast with `503 apple_unavailable` and starts a fetch.
package final class AppleKeyCache: Sendable {
    private let refresh: BackgroundRefresh<JSONWebKeySet>

    package init(service: any AppleService, time: any TimeSource, log: Logger) {
        refresh = BackgroundRefresh(time: time) { completion in
            service.fetchKeys { reply in
                let lifetime = reply.maximumAge.map(TimeInterval.init)
                guard reply.status == 200 else {
                    log.warning("apple keys: fetch failed (\(reply.status.map { "status \($0)" } ?? "unreachable"))", event: "apple")
                    return completion(nil, lifetime)
                }
                do throws(AppleSignInError) {
                    completion(try JSONWebKeySet(json: reply.body), lifetime)
                } catch {
                    log.warning("apple keys: fetch failed (\(error.code))", event: "apple")
                    completion(nil, lifetime)
                }
            }
        }
    }

    /// Key fetches so far, and those that failed.
    package var fetchCounts: (fetches: Int, failures: Int) { refresh.fetchCounts }

    /// Unexpired keys; without them `503 apple_unavailable` at once, with a fetch started in the background.
    package func keys(now: Date) throws(ServerError) -> JSONWebKeySet {
        guard let keys = refresh.current(now: now) else { throw ServerError(.appleUnavailable) }
        return keys
    }

    /// After a token named a key the cached set lacks: see `BackgroundRefresh.refreshForUnknownKey`.
    package func refreshForUnknownKey(now: Date) -> Bool { refresh.refreshForUnknownKey(now: now) }

    /// Starts a fetch when the keys are due for refresh or missing (the worker's rounds, start-up).
    package func refreshIfDue() { refresh.refreshIfDue() }

    /// Whether keys are cached and unexpired at `now`, and how many fetches have completed (for tests).
    package func status(now: Date) -> (cached: Bool, completedFetches: Int) { refresh.status(now: now) }
}
