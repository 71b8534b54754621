import Dispatch
import Foundation
import Storage
import Synchronization

/// The clauses of the store contract for ceremony challenges (`ChallengeStore`): single use, expiry, keys.
extension StoreContract {
    static let challengeChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "challenges are single use", run: challengesAreSingleUse),
        StoreContractCheck(name: "expired challenges are reported and removed", run: expiredChallengesAreRemoved),
        StoreContractCheck(name: "insertChallenge checks user and duplicates", run: insertChallengeChecksKeys),
        StoreContractCheck(name: "purgeExpiredChallenges counts", run: purgeExpiredChallengesCounts),
        StoreContractCheck(name: "16 threads taking one challenge: one winner", run: concurrentTakeHasOneWinner),
    ]

    public static func challengesAreSingleUse(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        var withoutUser = StoreSamples.challenge(1)
        withoutUser.context = []
        withoutUser.ceremony = .appleNonce
        let withUser = StoreSamples.challenge(2, userID: StoreSamples.userID(1))
        try store.insertChallenge(withoutUser)
        try store.insertChallenge(withUser)
        let now = StoreSamples.now
        try expectEqual(try store.takeChallenge(withoutUser.challenge, now: now), .valid(withoutUser), "first take")
        try expectEqual(try store.takeChallenge(withoutUser.challenge, now: now), .unknown, "second take")
        try expectEqual(try store.takeChallenge(withUser.challenge, now: now), .valid(withUser), "with user")
        try expectEqual(try store.takeChallenge(withUser.challenge, now: now), .unknown, "with user, again")
        try store.insertChallenge(withoutUser)
        try expectEqual(try store.takeChallenge(withoutUser.challenge, now: now), .valid(withoutUser), "reinserted")
    }

    public static func expiredChallengesAreRemoved(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        let atNow = StoreSamples.challenge(1, expiresAt: now)
        let past = StoreSamples.challenge(2, expiresAt: now.addingTimeInterval(-1))
        let justValid = StoreSamples.challenge(3, expiresAt: now.addingTimeInterval(0.001))
        for challenge in [atNow, past, justValid] {
            try store.insertChallenge(challenge)
        }
        try expectEqual(try store.takeChallenge(atNow.challenge, now: now), .expired, "expiring now")
        try expectEqual(try store.takeChallenge(atNow.challenge, now: now), .unknown, "removed")
        try expectEqual(try store.takeChallenge(past.challenge, now: now), .expired, "past")
        try expectEqual(try store.takeChallenge(past.challenge, now: now.addingTimeInterval(-10)), .unknown, "removed")
        try expectEqual(try store.takeChallenge(justValid.challenge, now: now), .valid(justValid), "just valid")
    }

    public static func insertChallengeChecksKeys(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try expectStorageError(.notFound, "unknown user") { () throws(StorageError) in
            try store.insertChallenge(StoreSamples.challenge(1, userID: StoreSamples.userID(1)))
        }
        try expectEqual(try store.takeChallenge(StoreSamples.challenge(1).challenge, now: StoreSamples.now), .unknown, "refused")
        try store.insertChallenge(StoreSamples.challenge(2))
        try expectStorageError(.duplicateKey, "same challenge") { () throws(StorageError) in
            try store.insertChallenge(StoreSamples.challenge(2, expiresAt: StoreSamples.now.addingTimeInterval(900)))
        }
        try expectEqual(
            try store.takeChallenge(StoreSamples.challenge(2).challenge, now: StoreSamples.now),
            .valid(StoreSamples.challenge(2)),
            "original kept"
        )
    }

    public static func purgeExpiredChallengesCounts(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        for number: UInt8 in 1...3 {
            try store.insertChallenge(StoreSamples.challenge(number, expiresAt: now.addingTimeInterval(-Double(number - 1))))
        }
        for number: UInt8 in 4...5 {
            try store.insertChallenge(StoreSamples.challenge(number, expiresAt: now.addingTimeInterval(1)))
        }
        try expectEqual(try store.purgeExpiredChallenges(now: now), 3, "purged")
        try expectEqual(try store.purgeExpiredChallenges(now: now), 0, "purged again")
        try expectEqual(try store.takeChallenge(StoreSamples.challenge(1).challenge, now: now), .unknown, "purged one")
        try expectEqual(
            try store.takeChallenge(StoreSamples.challenge(4).challenge, now: now),
            .valid(StoreSamples.challenge(4, expiresAt: now.addingTimeInterval(1))),
            "live one"
        )
        try expectEqual(try store.purgeExpiredChallenges(now: now.addingTimeInterval(1)), 1, "the last one")
    }

    public static func concurrentTakeHasOneWinner(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        for round: UInt8 in 1...5 {
            let challenge = StoreSamples.challenge(round)
            try store.insertChallenge(challenge)
            let outcomes = takeConcurrently(challenge.challenge, threads: 16) { _ in store }
            try expectEqual(outcomes.valid, 1, "round \(round): .valid outcomes")
            try expectEqual(outcomes.unknown, 15, "round \(round): .unknown outcomes")
            try expectEqual(outcomes.failures, [], "round \(round): errors")
        }
    }

    /// The outcomes of racing threads for one challenge.
    public struct RaceOutcomes: Sendable {
        public var valid = 0
        public var expired = 0
        public var unknown = 0
        public var failures: [StorageError] = []
    }

    /// Starts `threads` threads that take `challenge` at the same moment, thread `index` using `store(index)`,
    /// and returns once all have finished.
    public static func takeConcurrently(
        _ challenge: [UInt8],
        threads: Int,
        store: @escaping @Sendable (Int) -> any PasskeyStore
    ) -> RaceOutcomes {
        let outcomes = Mutex(RaceOutcomes())
        let ready = DispatchSemaphore(value: 0)
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for index in 0..<threads {
            finished.enter()
            Thread {
                ready.signal()
                start.wait()
                let result = Result { () throws(StorageError) in
                    try store(index).takeChallenge(challenge, now: StoreSamples.now)
                }
                outcomes.withLock { outcomes in
                    switch result {
                    case .success(.valid): outcomes.valid += 1
                    case .success(.expired): outcomes.expired += 1
                    case .success(.unknown): outcomes.unknown += 1
                    case .failure(let error): outcomes.failures.append(error)
                    }
                }
                finished.leave()
            }.start()
        }
        for _ in 0..<threads {
            ready.wait()
        }
        for _ in 0..<threads {
            start.signal()
        }
        finished.wait()
        return outcomes.withLock { $0 }
    }
}
