import Foundation
import Observability
import Storage
import Synchronization

/// Removes what has expired: challenges, sessions, remembered Apple nonces, enrollment links, the OpenID provider's
/// authorization codes and grants (with their refresh tokens), events older than the retention, the shared rate-limit
/// buckets that have refilled, and the imported password hashes that `passwords.retireAfterDays` retired (at most
/// `retiredPasswordsPerPurge` a purge). Runs at most once a minute, on the request that stores a challenge or verifies
/// a sealed one when one is
/// due (one request a minute pays for a few indexed deletes; no other request waits for it). A failed purge is retried
/// a minute later.
final class ExpiredRecordPurge: Sendable {
    /// How long events stay in the outbox by default.
    static let defaultEventRetention: TimeInterval = 7 * 86_400
    /// The least time between two purges.
    static let interval: TimeInterval = 60

    private let store: any ChallengeStore & SessionStore & AppleNonceStore & EventStore & TransactionalStore
    private let eventRetention: TimeInterval
    /// `passwords.retireAfterDays`, in seconds: a hash goes this long after its account's first passkey; nil to keep.
    private let passwordRetirement: TimeInterval?
    private let log: Logger
    /// The most password hashes retired by one purge (the rest go at the next ones).
    static let retiredPasswordsPerPurge = 1_000
    private let lastPurge = Mutex(Date.distantPast)

    init(
        store: any ChallengeStore & SessionStore & AppleNonceStore & EventStore & TransactionalStore,
        eventRetention: TimeInterval = ExpiredRecordPurge.defaultEventRetention,
        passwordRetirement: TimeInterval? = nil,
        log: Logger
    ) {
        self.store = store
        self.eventRetention = eventRetention
        self.passwordRetirement = passwordRetirement
        self.log = log
    }

    /// Purges when the last purge is at least `interval` ago.
    func purgeIfDue(now: Date) {
        let due = lastPurge.withLock { last in
            guard now.timeIntervalSince(last) >= Self.interval else { return false }
            last = now
            return true
        }
        guard due else { return }
        do throws(StorageError) {
            _ = try store.purgeExpiredChallenges(now: now)
            _ = try store.purgeExpiredSessions(now: now)
            _ = try store.purgeExpiredNonces(now: now)
            try store.transaction { transaction throws(StorageError) in
                _ = try transaction.purgeExpiredEnrollmentTokens(now: now)
                _ = try transaction.purgeExpiredEmailTokens(now: now)
                _ = try transaction.purgeExpiredOAuthRecords(now: now)
                if let passwordRetirement {
                    _ = try transaction.retirePasswordHashes(
                        passkeyStoredBefore: now.addingTimeInterval(-passwordRetirement),
                        limit: Self.retiredPasswordsPerPurge
                    )
                }
            }
            _ = try store.purgeEvents(occurredBefore: now.addingTimeInterval(-eventRetention))
            if let shared = store as? any SharedLimitStore { _ = try shared.purgeFullLimitBuckets(now: now) }
        } catch {
            log.warning("purging expired records: \(error.code)", event: "purge")
        }
    }
}
