import Foundation
import Storage

/// The clauses of the store contract for a sign-in's final write, which expects what the verification assumed of the
/// credential, kept by the node from an earlier sign-in or read for this one (`CeremonyStore.completeAuthentication`).
extension StoreContract {
    static let expectedSignInChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "an expected sign-in is stored and answers the owner as stored", run: anExpectedSignInAnswersTheStoredOwner),
        StoreContractCheck(name: "an expected sign-in on a changed credential writes nothing but its challenge", run: aChangedCredentialIsRefused),
        StoreContractCheck(name: "an expected sign-in keeps the user's and the counter's refusals", run: anExpectedSignInKeepsTheOtherRefusals),
        StoreContractCheck(name: "a sign-in read afresh expects what the read answered", run: aFreshlyReadSignInExpectsWhatItRead),
    ]

    /// The expected sign-in of `credential(1, owner: 1)` with counter `signCount` and session `session`, spending `spending`.
    static func expectedSignIn(
        _ store: any PasskeyStore,
        expecting: CredentialRecord,
        signCount: UInt32,
        session: UInt8,
        spending: ChallengeRecord? = nil
    ) throws(StorageError) -> UserRecord {
        try store.completeAuthentication(
            StoreSamples.signIn(owner: 1, signCount: signCount),
            session: StoreSamples.session(session, owner: 1),
            events: [StoreSamples.event(Int(session), owner: 1, type: "session.created")],
            spending: spending,
            expecting: SignInExpectation(expecting)
        )
    }

    public static func anExpectedSignInAnswersTheStoredOwner(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 5
        try store.seedUser(StoreSamples.user(1), credential: credential)
        var renamed = StoreSamples.user(1, name: "renamed")
        renamed.displayName = "Renamed elsewhere"
        try store.transaction { transaction throws(StorageError) in _ = try transaction.updateUser(renamed) }
        let owner = try expectedSignIn(store, expecting: credential, signCount: 6, session: 1)
        try expectEqual(owner, try store.user(id: credential.userID), "the owner as stored at the write")
        try expectEqual(owner.displayName, "Renamed elsewhere", "not the record the sign-in was verified with")
        try expectEqual(try store.credential(id: credential.id)?.signCount, 6, "the counter")
        try expect(try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: StoreSamples.now) != nil, "the session")
        try expectEqual(try store.allEvents().map(\.type), ["session.created"], "the event")
    }

    public static func aChangedCredentialIsRefused(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var kept = StoreSamples.credential(1, owner: 1)
        kept.signCount = 5
        try store.seedUser(StoreSamples.user(1), credential: kept)
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        // Each a change of the stored row the verification must not have assumed away.
        var anotherKey = kept
        anotherKey.publicKey = StoreSamples.credential(2, owner: 2).publicKey
        anotherKey.signCount = 0
        var notEligible = kept
        notEligible.backupEligible = !kept.backupEligible
        var anotherHandle = kept
        anotherHandle.userHandle = [UInt8](repeating: 0x7E, count: 16)
        var moved = kept
        moved.userID = StoreSamples.userID(2)
        let changes: [(String, CredentialRecord?)] = [
            ("deleted and registered again with another key", anotherKey), ("another backup eligibility", notEligible),
            ("another user handle", anotherHandle), ("moved to another user", moved), ("deleted", nil),
        ]
        for (number, (change, stored)) in changes.enumerated() {
            let session = UInt8(number + 1)
            try store.transaction { transaction throws(StorageError) in
                _ = try transaction.deleteCredential(id: kept.id, userID: StoreSamples.userID(1))
                _ = try transaction.deleteCredential(id: kept.id, userID: StoreSamples.userID(2))
                if let stored { try transaction.insertCredential(stored) }
            }
            let spent = StoreSamples.spentChallenge(session)
            try expectStorageError(.credentialChanged, change) { () throws(StorageError) in
                _ = try expectedSignIn(store, expecting: kept, signCount: 9, session: session, spending: spent)
            }
            try expectEqual(try store.credential(id: kept.id), stored, "\(change): the credential unchanged")
            try expectEqual(
                try store.session(tokenHash: StoreSamples.session(session, owner: 1).tokenHash, now: StoreSamples.now),
                nil,
                "\(change): no session"
            )
            try expectEqual(try store.allEvents(), [], "\(change): no event")
            try expect(try isStored(store, spent), "\(change): the challenge is spent")
        }
    }

    public static func anExpectedSignInKeepsTheOtherRefusals(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 5
        try store.seedUser(StoreSamples.user(1), credential: credential)
        // A counter raised by a sign-in elsewhere after this one's record was kept.
        _ = try expectedSignIn(store, expecting: credential, signCount: 8, session: 1)
        try expectStorageError(.signCountNotIncreased, "a counter at or below the stored one") { () throws(StorageError) in
            _ = try expectedSignIn(store, expecting: credential, signCount: 7, session: 2)
        }
        try expectEqual(try store.credential(id: credential.id)?.signCount, 8, "the counter stored elsewhere")
        var disabled = StoreSamples.user(1)
        disabled.disabled = true
        try store.transaction { transaction throws(StorageError) in _ = try transaction.updateUser(disabled) }
        try expectStorageError(.userDisabled, "a disabled owner") { () throws(StorageError) in
            _ = try expectedSignIn(store, expecting: credential, signCount: 9, session: 3)
        }
        for session: UInt8 in [2, 3] {
            try expectEqual(
                try store.session(tokenHash: StoreSamples.session(session, owner: 1).tokenHash, now: StoreSamples.now),
                nil,
                "no session \(session)"
            )
        }
    }

    /// The driver's own sign-in read (`credential(id:)`) answers what its write compares with, bytes alike; a
    /// credential deleted and registered again with the same ID and another key between that read and the write is
    /// refused as any changed one.
    public static func aFreshlyReadSignInExpectsWhatItRead(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 5
        // A handle other than the owner's ID, as a passkey merged in from another account keeps.
        credential.userHandle = [UInt8](repeating: 0x4D, count: 24)
        try store.seedUser(StoreSamples.user(1), credential: credential)
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let read = { () throws -> CredentialRecord in
            guard let found = try store.credential(id: credential.id) else {
                throw StoreContractFailure(message: "the credential was not read", file: #filePath, line: #line)
            }
            return found
        }
        let owner = try expectedSignIn(store, expecting: try read(), signCount: 6, session: 1)
        try expectEqual(owner, try store.user(id: credential.userID), "the owner as stored at the write")
        try expectEqual(try store.credential(id: credential.id)?.signCount, 6, "the sign-in stored")
        let readAgain = try read()
        var again = readAgain
        again.publicKey = StoreSamples.credential(2, owner: 2).publicKey
        again.signCount = 0
        try store.transaction { transaction throws(StorageError) in
            _ = try transaction.deleteCredential(id: again.id, userID: again.userID)
            try transaction.insertCredential(again)
        }
        let spent = StoreSamples.spentChallenge(2)
        try expectStorageError(.credentialChanged, "registered again with another key after the read") { () throws(StorageError) in
            _ = try expectedSignIn(store, expecting: readAgain, signCount: 7, session: 2, spending: spent)
        }
        try expectEqual(try store.credential(id: credential.id), again, "nothing written")
        try expectEqual(
            try store.session(tokenHash: StoreSamples.session(2, owner: 1).tokenHash, now: StoreSamples.now),
            nil,
            "no session"
        )
        try expect(try isStored(store, spent), "the challenge is spent")
    }
}
