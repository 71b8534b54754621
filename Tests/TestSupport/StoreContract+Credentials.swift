import Foundation
import Storage

/// The clauses of the store contract for passkeys (credentials): unique IDs, their owner, their order, what a
/// sign-in records and renames.
extension StoreContract {
    static let credentialChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "credential IDs are unique across users", run: credentialIDsAreUnique),
        StoreContractCheck(name: "insertCredential requires the user", run: insertCredentialRequiresUser),
        StoreContractCheck(name: "credentials are ordered by createdAt then id", run: credentialsAreOrdered),
        StoreContractCheck(name: "credential reads a passkey whoever owns it", run: credentialIsReadByItsID),
        StoreContractCheck(name: "recordAuthentication updates and ORs warnings", run: recordAuthenticationORsWarnings),
        StoreContractCheck(name: "renameCredential only renames the owner's credential", run: renameChecksOwner),
    ]

    public static func credentialIDsAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try register(store, StoreSamples.user(1), StoreSamples.credential(1, owner: 1))
        try register(store, StoreSamples.user(2), StoreSamples.credential(2, owner: 2))
        try expectStorageError(.credentialExists, "same user") { () throws(StorageError) in
            try store.seedCredential(StoreSamples.credential(1, owner: 1))
        }
        try expectStorageError(.credentialExists, "other user") { () throws(StorageError) in
            try store.seedCredential(StoreSamples.credential(1, owner: 2))
        }
        try expectStorageError(.credentialExists, "other user, by registration") { () throws(StorageError) in
            try store.completeRegistration(
                newUser: nil,
                credential: StoreSamples.credential(1, owner: 2),
                session: StoreSamples.session(7, owner: 2),
                events: []
            )
        }
        try expectEqual(try store.credential(id: StoreSamples.credential(1, owner: 1).id)?.userID, StoreSamples.userID(1), "owner")
        try expectEqual(try store.credentials(userID: StoreSamples.userID(2)).count, 1, "credentials of user 2")
    }

    public static func insertCredentialRequiresUser(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try expectStorageError(.notFound, "unknown user") { () throws(StorageError) in
            try store.seedCredential(StoreSamples.credential(1, owner: 1))
        }
        try expectEqual(try store.credential(id: StoreSamples.credential(1, owner: 1).id), nil, "refused credential")
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        var second = StoreSamples.credential(2, owner: 1)
        second.lastUsedAt = StoreSamples.now
        second.cloneWarning = true
        second.backupEligibilityChanged = true
        second.backupState = true
        try store.seedCredential(second)
        try expectEqual(try store.credential(id: second.id), second, "added credential")
    }

    public static func credentialsAreOrdered(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let base = StoreSamples.now
        let first = StoreSamples.credential(5, owner: 1, createdAt: base.addingTimeInterval(-100))
        try store.seedUser(StoreSamples.user(1), credential: first)
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(9, owner: 2, createdAt: base))
        let latest = StoreSamples.credential(1, owner: 1, createdAt: base.addingTimeInterval(0.001))
        let tieHigh = StoreSamples.credential(4, owner: 1, createdAt: base)
        let tieLow = StoreSamples.credential(3, owner: 1, createdAt: base)
        for credential in [latest, tieHigh, tieLow] {
            try store.seedCredential(credential)
        }
        try expectEqual(try store.credentials(userID: StoreSamples.userID(1)), [first, tieLow, tieHigh, latest], "order")
    }

    /// Each owner's credential, every column (the optional ones set); nil for a credential nobody has, and once its
    /// account is deleted. On PostgreSQL through a transaction-mode pooler, this is schema step 28's function. The owner,
    /// which this read no longer joins, comes from the sign-in's write, optional columns included.
    public static func credentialIsReadByItsID(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var ann = StoreSamples.user(1)
        ann.email = "ann@example.com"
        ann.emailVerified = true
        let bob = StoreSamples.user(2)
        var annsKey = StoreSamples.credential(1, owner: 1)
        annsKey.signCount = 5
        var bobsKey = StoreSamples.credential(2, owner: 2)
        bobsKey.lastUsedAt = StoreSamples.now.addingTimeInterval(-5.25)
        bobsKey.signCount = 9
        try store.seedUser(ann, credential: annsKey)
        try store.seedUser(bob, credential: bobsKey)
        try expectEqual(try store.credential(id: annsKey.id), annsKey, "Ann's credential")
        try expectEqual(try store.credential(id: bobsKey.id), bobsKey, "Bob's credential")
        try expectEqual(try store.credential(id: StoreSamples.credential(3, owner: 1).id) == nil, true, "unknown credential")
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: bob.id) }
        try expectEqual(try store.credential(id: bobsKey.id) == nil, true, "deleted account")
        try expectEqual(try store.credential(id: annsKey.id), annsKey, "Ann's still")
        let owner = try expectedSignIn(store, expecting: annsKey, signCount: 6, session: 1)
        try expectEqual(owner, try store.user(id: ann.id), "Ann, as a sign-in's write answers her")
        try expectEqual(owner.email, "ann@example.com", "Ann's email")
    }

    public static func recordAuthenticationORsWarnings(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var original = StoreSamples.credential(1, owner: 1)
        original.signCount = 6
        try store.seedUser(StoreSamples.user(1), credential: original)
        let usedAt = StoreSamples.now.addingTimeInterval(12.75)
        try store.transaction { transaction throws(StorageError) in
            try transaction.recordAuthentication(
                AuthenticationUpdate(
                    credentialID: original.id,
                    signCount: 7,
                    backupEligible: false,
                    backupState: true,
                    usedAt: usedAt,
                    cloneWarning: true,
                    backupEligibilityChanged: false
                )
            )
        }
        var expected = original
        expected.signCount = 7
        expected.backupEligible = false
        expected.backupState = true
        expected.lastUsedAt = usedAt
        expected.cloneWarning = true
        try expectEqual(try store.credential(id: original.id), expected, "after first authentication")

        let later = usedAt.addingTimeInterval(60)
        try store.transaction { transaction throws(StorageError) in
            try transaction.recordAuthentication(
                AuthenticationUpdate(
                    credentialID: original.id,
                    signCount: 8,
                    backupEligible: true,
                    backupState: false,
                    usedAt: later,
                    cloneWarning: false,
                    backupEligibilityChanged: true
                )
            )
        }
        expected.signCount = 8
        expected.backupEligible = true
        expected.backupState = false
        expected.lastUsedAt = later
        expected.backupEligibilityChanged = true
        try expectEqual(try store.credential(id: original.id), expected, "warnings are never cleared")

        try store.transaction { transaction throws(StorageError) in
            try transaction.recordAuthentication(
                AuthenticationUpdate(
                    credentialID: original.id,
                    signCount: 9,
                    backupEligible: true,
                    backupState: false,
                    usedAt: later,
                    cloneWarning: false,
                    backupEligibilityChanged: false
                )
            )
        }
        try expect(try store.credential(id: original.id)?.cloneWarning == true, "cloneWarning stays set")
        try expect(try store.credential(id: original.id)?.backupEligibilityChanged == true, "BE change stays set")
        try expectStorageError(.notFound, "unknown credential") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                try transaction.recordAuthentication(
                    AuthenticationUpdate(
                        credentialID: [9, 9],
                        signCount: 1,
                        backupEligible: false,
                        backupState: false,
                        usedAt: later,
                        cloneWarning: false,
                        backupEligibilityChanged: false
                    )
                )
            }
        }
    }

    public static func renameChecksOwner(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let mine = StoreSamples.credential(1, owner: 1)
        let theirs = StoreSamples.credential(2, owner: 2)
        try store.seedUser(StoreSamples.user(1), credential: mine)
        try store.seedUser(StoreSamples.user(2), credential: theirs)
        try expect(
            try store.transaction { transaction throws(StorageError) in
                try transaction.renameCredential(id: mine.id, userID: mine.userID, name: "Phone 📱")
            },
            "own rename"
        )
        try expectEqual(try store.credential(id: mine.id)?.name, "Phone 📱", "renamed")
        try expect(
            !(try store.transaction { transaction throws(StorageError) in
                try transaction.renameCredential(id: theirs.id, userID: mine.userID, name: "mine now")
            }),
            "foreign rename"
        )
        try expectEqual(try store.credential(id: theirs.id), theirs, "foreign credential unchanged")
        try expect(
            !(try store.transaction { transaction throws(StorageError) in try transaction.renameCredential(id: [7], userID: mine.userID, name: "x") }),
            "unknown credential"
        )
    }
}
