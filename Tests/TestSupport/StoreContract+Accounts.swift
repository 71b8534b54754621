import Foundation
import Storage

/// The clauses of the store contract for the compound account operations, written on top of several record kinds:
/// merges (moving credentials and identities), deleting an account with every row of it, deleting a passkey unless it
/// is the last way to sign in.
extension StoreContract {
    static let accountChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "a merge moves credentials and Apple identities", run: mergeMovesRecords),
        StoreContractCheck(name: "deleteCredentialUnlessLast refuses the last credential", run: deleteCredentialKeepsLast),
        StoreContractCheck(name: "deleteUser removes every row of the account", run: deleteUserCascades),
    ]

    public static func mergeMovesRecords(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        try store.seedCredential(StoreSamples.credential(3, owner: 2))
        try store.seedAppleIdentity(StoreSamples.appleIdentity("001.b", owner: 2))
        let moved = try store.transaction { transaction throws(StorageError) in
            (
                try transaction.moveCredentials(from: StoreSamples.userID(2), to: StoreSamples.userID(1)),
                try transaction.moveAppleIdentities(from: StoreSamples.userID(2), to: StoreSamples.userID(1))
            )
        }
        try expectEqual([moved.0, moved.1], [2, 1], "counts")
        try expectEqual(try store.credentials(userID: StoreSamples.userID(1)).count, 3, "every passkey at the survivor")
        try expectEqual(try store.credential(id: StoreSamples.credential(3, owner: 2).id)?.userID, StoreSamples.userID(1), "its owner")
        try expectEqual(
            try store.credential(id: StoreSamples.credential(3, owner: 2).id)?.userHandle,
            StoreSamples.userID(2),
            "the handle its authenticator holds is kept"
        )
        try expectEqual(try store.appleIdentity(subject: "001.b")?.userID, StoreSamples.userID(1), "the identity at the survivor")
        try expectEqual(try store.credentials(userID: StoreSamples.userID(2)), [], "nothing left")
        let nothing = try store.transaction { transaction throws(StorageError) in
            try transaction.moveCredentials(from: StoreSamples.userID(2), to: StoreSamples.userID(8))
                + transaction.moveAppleIdentities(from: StoreSamples.userID(2), to: StoreSamples.userID(8))
        }
        try expectEqual(nothing, 0, "nothing to move, even to no one")
        try expectStorageError(.notFound, "credentials to a user that does not exist") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in
                try transaction.moveCredentials(from: StoreSamples.userID(1), to: StoreSamples.userID(8))
            }
        }
        try expectStorageError(.notFound, "identities to a user that does not exist") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in
                try transaction.moveAppleIdentities(from: StoreSamples.userID(1), to: StoreSamples.userID(8))
            }
        }
        try expectEqual(try store.credentials(userID: StoreSamples.userID(1)).count, 3, "a refused move changes nothing")
    }

    public static func deleteCredentialKeepsLast(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let first = StoreSamples.credential(1, owner: 1)
        let second = StoreSamples.credential(2, owner: 1, createdAt: StoreSamples.now)
        let theirs = StoreSamples.credential(3, owner: 2)
        try store.seedUser(StoreSamples.user(1), credential: first)
        try store.seedUser(StoreSamples.user(2), credential: theirs)
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteCredentialUnlessLast(id: first.id, userID: first.userID)
            },
            .lastCredential,
            "only credential"
        )
        try expectEqual(try store.credentials(userID: first.userID), [first], "kept")
        try store.seedCredential(second)
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                try transaction.deleteCredentialUnlessLast(id: theirs.id, userID: first.userID)
            },
            .notFound,
            "foreign credential"
        )
        try expectEqual(try store.credential(id: theirs.id), theirs, "foreign credential kept")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteCredentialUnlessLast(id: [7], userID: first.userID) },
            .notFound,
            "unknown credential"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteCredentialUnlessLast(id: first.id, userID: first.userID)
            },
            .deleted,
            "one of two"
        )
        try expectEqual(try store.credentials(userID: first.userID), [second], "remaining")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteCredentialUnlessLast(id: first.id, userID: first.userID)
            },
            .notFound,
            "deleted twice"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                try transaction.deleteCredentialUnlessLast(id: second.id, userID: first.userID)
            },
            .lastCredential,
            "now the only one"
        )
    }

    public static func deleteUserCascades(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let doomed = StoreSamples.user(1)
        let kept = StoreSamples.user(2)
        try store.seedUser(doomed, credential: StoreSamples.credential(1, owner: 1))
        try store.seedCredential(StoreSamples.credential(2, owner: 1))
        try store.seedUser(kept, credential: StoreSamples.credential(3, owner: 2))
        try store.seedSession(StoreSamples.session(1, owner: 1))
        try store.seedSession(StoreSamples.session(2, owner: 1))
        try store.seedSession(StoreSamples.session(3, owner: 2))
        try store.insertChallenge(StoreSamples.challenge(1, userID: doomed.id))
        try store.insertChallenge(StoreSamples.challenge(2, userID: kept.id))
        try store.insertChallenge(StoreSamples.challenge(3))

        try expectEqual(try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: doomed.id) }, true, "deleteUser")
        let now = StoreSamples.now
        try expectEqual(try store.user(id: doomed.id), nil, "user")
        try expectEqual(try store.user(name: doomed.name), nil, "user by name")
        try expectEqual(try store.credentials(userID: doomed.id), [], "credentials")
        try expectEqual(try store.credential(id: StoreSamples.credential(1, owner: 1).id), nil, "credential 1")
        try expectEqual(try store.credential(id: StoreSamples.credential(2, owner: 1).id), nil, "credential 2")
        try expectEqual(try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: now), nil, "session 1")
        try expectEqual(try store.session(tokenHash: StoreSamples.session(2, owner: 1).tokenHash, now: now), nil, "session 2")
        try expectEqual(try store.purgeExpiredSessions(now: now.addingTimeInterval(1e9)), 1, "sessions left")
        try expectEqual(try store.takeChallenge(StoreSamples.challenge(1).challenge, now: now), .unknown, "challenge")
        try expectEqual(try store.user(id: kept.id), kept, "other user")
        try expectEqual(try store.credentials(userID: kept.id), [StoreSamples.credential(3, owner: 2)], "other credentials")
        try expectEqual(
            try store.takeChallenge(StoreSamples.challenge(2).challenge, now: now),
            .valid(StoreSamples.challenge(2, userID: kept.id)),
            "other user's challenge"
        )
        try expectEqual(
            try store.takeChallenge(StoreSamples.challenge(3).challenge, now: now),
            .valid(StoreSamples.challenge(3)),
            "challenge without user"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: doomed.id) },
            false,
            "deleteUser again"
        )
        try store.seedUser(doomed, credential: StoreSamples.credential(1, owner: 1))
    }
}
