import Foundation
import Storage
import Synchronization

/// The clauses of the store contract for a sign-in that spends a sealed challenge in its final write
/// (`CeremonyStore.completeAuthentication`).
extension StoreContract {
    static let spentChallengeChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "completeAuthentication spends a sealed challenge once", run: aSealedChallengeIsSpentOnce),
        StoreContractCheck(name: "a refused sign-in spends its challenge, a faulty one does not", run: aRefusedSignInSpendsItsChallenge),
        StoreContractCheck(name: "16 threads spending one challenge: one sign-in", run: concurrentSpendsHaveOneWinner),
    ]

    /// A sign-in of `credentialID` verified against `credential(1, owner: 1)` as sampled.
    static func signIn(
        _ store: any PasskeyStore,
        _ credentialID: [UInt8],
        signCount: UInt32,
        session: SessionRecord,
        spending: ChallengeRecord
    ) throws(StorageError) {
        _ = try store.completeAuthentication(
            AuthenticationUpdate(
                credentialID: credentialID,
                signCount: signCount,
                backupEligible: true,
                backupState: true,
                usedAt: StoreSamples.now.addingTimeInterval(Double(session.id.last ?? 0)),
                backupEligibilityChanged: false
            ),
            session: session,
            events: [],
            spending: spending,
            expecting: StoreSamples.expecting(1, owner: 1)
        )
    }

    /// Whether a challenge with the bytes of `challenge` is stored: inserting it again is a duplicate.
    static func isStored(_ store: any PasskeyStore, _ challenge: ChallengeRecord) throws -> Bool {
        do {
            try store.insertChallenge(challenge)
            _ = try store.takeChallenge(challenge.challenge, now: StoreSamples.now)
            return false
        } catch  where error.code == .duplicateKey {
            return true
        }
    }

    public static func aSealedChallengeIsSpentOnce(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 0
        try store.seedUser(StoreSamples.user(1), credential: credential)
        let spent = StoreSamples.spentChallenge(1)
        try signIn(store, credential.id, signCount: 0, session: StoreSamples.session(1, owner: 1), spending: spent)
        let afterFirst = try store.credential(id: credential.id)
        try expect(try isStored(store, spent), "the challenge is stored as spent")
        try expectEqual(try store.status(now: StoreSamples.now).outstandingChallenges, 0, "a spent challenge is not outstanding")

        try expectStorageError(.challengeSpent, "the same challenge again") { () throws(StorageError) in
            try signIn(store, credential.id, signCount: 0, session: StoreSamples.session(2, owner: 1), spending: spent)
        }
        try expectEqual(
            try store.session(tokenHash: StoreSamples.session(2, owner: 1).tokenHash, now: StoreSamples.now),
            nil,
            "no session for the second use"
        )
        try expectEqual(try store.credential(id: credential.id), afterFirst, "the credential is as the first use left it")
        try expectEqual(try store.session(id: StoreSamples.session(1, owner: 1).id, now: StoreSamples.now)?.userID, credential.userID, "first")

        // Kept until it expires, then purged like any challenge.
        try expectEqual(try store.purgeExpiredChallenges(now: spent.expiresAt.addingTimeInterval(-1)), 0, "kept before its expiry")
        try expectEqual(try store.purgeExpiredChallenges(now: spent.expiresAt), 1, "purged at its expiry")
        try expect(try !isStored(store, spent), "gone after the purge")
    }

    public static func aRefusedSignInSpendsItsChallenge(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 5
        try store.seedUser(StoreSamples.user(1), credential: credential)
        try store.seedSession(StoreSamples.session(9, owner: 1))

        let counter = StoreSamples.spentChallenge(1)
        try expectStorageError(.signCountNotIncreased, "counter 5 after 5") { () throws(StorageError) in
            try signIn(store, credential.id, signCount: 5, session: StoreSamples.session(1, owner: 1), spending: counter)
        }
        try expect(try isStored(store, counter), "spent by the refused counter")

        let missing = StoreSamples.spentChallenge(2)
        try expectStorageError(.credentialChanged, "an unknown credential") { () throws(StorageError) in
            try signIn(store, [0xEE, 0xEE], signCount: 6, session: StoreSamples.session(2, owner: 1), spending: missing)
        }
        try expect(try isStored(store, missing), "spent by the missing credential")

        // A fault (a session that exists) changes nothing: the client may try again with the same challenge.
        let fault = StoreSamples.spentChallenge(3)
        try expectStorageError(.duplicateKey, "a session stored already") { () throws(StorageError) in
            try signIn(store, credential.id, signCount: 6, session: StoreSamples.session(9, owner: 1), spending: fault)
        }
        try expect(try !isStored(store, fault), "not spent by a fault")
        for number: UInt8 in [1, 2] {
            try expectEqual(
                try store.session(tokenHash: StoreSamples.session(number, owner: 1).tokenHash, now: StoreSamples.now),
                nil,
                "no session \(number)"
            )
        }
        try expectEqual(try store.credential(id: credential.id), credential, "credential unchanged")
    }

    public static func concurrentSpendsHaveOneWinner(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 0
        try store.seedUser(StoreSamples.user(1), credential: credential)
        let credentialID = credential.id
        let spent = StoreSamples.spentChallenge(7)
        let winners = Mutex<[Int]>([])
        let sessions = (UInt8(100)..<116).map { StoreSamples.session($0, owner: 1) }
        let failures = concurrently(threads: sessions.count, rounds: 1) { index, _ throws(StorageError) in
            do throws(StorageError) {
                try signIn(store, credentialID, signCount: 0, session: sessions[index], spending: spent)
                winners.withLock { $0.append(index) }
            } catch  where error.code == .challengeSpent {
                // Another thread spent it first.
            }
        }
        try expectEqual(failures, [], "errors")
        let won = winners.withLock { $0 }
        try expectEqual(won.count, 1, "sign-ins with one challenge")
        let stored = try sessions.filter { session in try store.session(tokenHash: session.tokenHash, now: StoreSamples.now) != nil }
        try expectEqual(stored.map(\.id), won.map { sessions[$0].id }, "the winner's session alone")
    }
}
