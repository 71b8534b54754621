import Foundation
import Storage

/// The clause of the store contract for what a store reports about itself (readiness, metrics).
extension StoreContract {
    static let statusChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "status is migrated and counts live challenges and sessions", run: statusCountsLiveRecords),
        StoreContractCheck(name: "a write probe succeeds and changes nothing", run: writeProbeChangesNothing),
    ]

    public static func writeProbeChangesNothing(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let before = try store.status(now: StoreSamples.now)
        for _ in 1...3 { try store.probeWrite() }
        try expectEqual(try store.status(now: StoreSamples.now), before, "the status after three write probes")
        try expectEqual(try store.user(id: StoreSamples.userID(1)), StoreSamples.user(1), "a user after three write probes")
    }

    public static func statusCountsLiveRecords(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        let empty = try store.status(now: now)
        try expect(empty.isMigrated && empty.schemaVersion >= 1, "a new store is at the latest schema: \(empty)")
        try expectEqual(empty.outstandingChallenges, 0, "challenges of an empty store")
        try expectEqual(empty.liveSessions, 0, "sessions of an empty store")
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.insertChallenge(StoreSamples.challenge(1))
        try store.insertChallenge(StoreSamples.challenge(2, expiresAt: now.addingTimeInterval(10)))
        try store.insertChallenge(StoreSamples.challenge(3, expiresAt: now))
        try store.seedSession(StoreSamples.session(1, owner: 1))
        try store.seedSession(StoreSamples.session(2, owner: 1, expiresAt: now))
        let status = try store.status(now: now)
        try expectEqual(status.outstandingChallenges, 2, "unexpired challenges")
        try expectEqual(status.liveSessions, 1, "unexpired sessions")
        _ = try store.takeChallenge(StoreSamples.challenge(1).challenge, now: now)
        try expectEqual(try store.status(now: now.addingTimeInterval(20)).outstandingChallenges, 0, "after one was used and one expired")
    }
}
