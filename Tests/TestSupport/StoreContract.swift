import Dispatch
import Foundation
import Storage
import Synchronization

/// The contract every `PasskeyStore` driver must meet, as functions taking a factory of fresh stores.
/// Run `StoreContract.checks` against each driver.
public enum StoreContract {
    /// Every check, named for the clause it covers.
    public static let checks: [StoreContractCheck] =
        [
            StoreContractCheck(name: "completeRegistration stores the user and its credential", run: registrationStoresEverything),
            StoreContractCheck(name: "lookups of missing records return nil", run: missingRecordsAreNil),
            StoreContractCheck(name: "usernames are unique", run: usernamesAreUnique),
            StoreContractCheck(name: "completeRegistration is atomic on credentialExists", run: registrationIsAtomicOnCredentialExists),
            StoreContractCheck(name: "completeRegistration refuses a foreign first credential", run: registrationRequiresOwnCredential),
            StoreContractCheck(name: "user handles are unique", run: userIDsAreUnique),
            StoreContractCheck(name: "credential IDs are unique across users", run: credentialIDsAreUnique),
            StoreContractCheck(name: "insertCredential requires the user", run: insertCredentialRequiresUser),
            StoreContractCheck(name: "credentials are ordered by createdAt then id", run: credentialsAreOrdered),
            StoreContractCheck(name: "credentialWithOwner reads a credential with its owner", run: credentialIsReadWithItsOwner),
            StoreContractCheck(name: "recordAuthentication updates and ORs warnings", run: recordAuthenticationORsWarnings),
            StoreContractCheck(name: "renameCredential only renames the owner's credential", run: renameChecksOwner),
            StoreContractCheck(name: "deleteCredentialUnlessLast refuses the last credential", run: deleteCredentialKeepsLast),
            StoreContractCheck(name: "deleteUser removes every row of the account", run: deleteUserCascades),
            StoreContractCheck(name: "challenges are single use", run: challengesAreSingleUse),
            StoreContractCheck(name: "expired challenges are reported and removed", run: expiredChallengesAreRemoved),
            StoreContractCheck(name: "insertChallenge checks user and duplicates", run: insertChallengeChecksKeys),
            StoreContractCheck(name: "purgeExpiredChallenges counts", run: purgeExpiredChallengesCounts),
            StoreContractCheck(name: "sessions are found until they expire", run: sessionsExpire),
            StoreContractCheck(name: "sessions are deleted one or all", run: sessionsAreDeleted),
            StoreContractCheck(name: "insertSession checks user and duplicates", run: insertSessionChecksKeys),
            StoreContractCheck(name: "purgeExpiredSessions counts", run: purgeExpiredSessionsCounts),
            StoreContractCheck(name: "16 threads taking one challenge: one winner", run: concurrentTakeHasOneWinner),
        ] + appleChecks + ceremonyChecks + spentChallengeChecks + transactionChecks + sessionChecks + eventChecks + webhookChecks + accountChecks
        + statusChecks + administrationChecks + signingKeyChecks + openIDProviderChecks + usernameChecks

    /// Registers a new account with `completeRegistration` and a session of its own (derived from the owner and the
    /// credential's number, so that no two calls of a check collide), without events.
    static func register(_ store: any PasskeyStore, _ user: UserRecord, _ credential: CredentialRecord) throws(StorageError) {
        let key = [credential.userID[0], credential.id[1]]
        let session = SessionRecord(
            tokenHash: [0x5E] + key + [UInt8](repeating: 0, count: 29),
            id: [0x1E] + key + [UInt8](repeating: 0, count: 13),
            userID: credential.userID,
            method: .passkey,
            credentialID: credential.id,
            userVerified: false,
            createdAt: StoreSamples.now,
            expiresAt: StoreSamples.now.addingTimeInterval(60)
        )
        try store.completeRegistration(newUser: user, credential: credential, session: session, events: [])
    }

    public static func registrationStoresEverything(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let user = StoreSamples.user(1)
        var credential = StoreSamples.credential(1, owner: 1)
        credential.transports = []
        credential.attestationSummary = ""
        try register(store, user, credential)
        try expectEqual(try store.user(id: user.id), user, "user(id:)")
        try expectEqual(try store.user(name: user.name), user, "user(name:)")
        try expectEqual(try store.credential(id: credential.id), credential, "credential(id:)")
        try expectEqual(try store.credentials(userID: user.id), [credential], "credentials(userID:)")
        try expectEqual(try store.user(name: user.name.uppercased()), user, "usernames compare by their key")
        try expectEqual(try store.user(name: user.name + "x"), nil, "another name")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                [try transaction.user(id: user.id), try transaction.user(name: user.name), try transaction.user(name: user.name.uppercased())]
            },
            [user, user, user],
            "the transaction's reads"
        )
    }

    public static func missingRecordsAreNil(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try expectEqual(try store.user(id: StoreSamples.userID(9)), nil, "user(id:)")
        try expectEqual(try store.user(name: "nobody"), nil, "user(name:)")
        try expectEqual(try store.credential(id: [1, 2, 3]), nil, "credential(id:)")
        try expectEqual(try store.credentials(userID: StoreSamples.userID(9)), [], "credentials(userID:)")
        try expectEqual(try store.session(tokenHash: [1], now: StoreSamples.now), nil, "session")
        try expectEqual(try store.takeChallenge([1], now: StoreSamples.now), .unknown, "takeChallenge")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(9)) },
            false,
            "deleteUser"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSession(tokenHash: [1]) },
            nil,
            "deleteSession"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSessions(userID: StoreSamples.userID(9), except: nil) },
            [],
            "deleteSessions"
        )
        try store.recordSessionUse(tokenHash: [1], at: StoreSamples.now)
    }

    public static func usernamesAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try register(store, StoreSamples.user(1, name: "alice"), StoreSamples.credential(1, owner: 1))
        try expectStorageError(.usernameTaken, "same username") { () throws(StorageError) in
            try register(store, StoreSamples.user(2, name: "alice"), StoreSamples.credential(2, owner: 2))
        }
        try expectStorageError(.usernameTaken, "same username, in a transaction") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(2, name: "alice"), credential: StoreSamples.credential(2, owner: 2))
        }
        try expectEqual(try store.user(id: StoreSamples.userID(2)), nil, "refused user")
        try expectEqual(try store.credential(id: StoreSamples.credential(2, owner: 2).id), nil, "refused credential")
        try expectEqual(try store.user(name: "alice")?.id, StoreSamples.userID(1), "first owner keeps the name")
        try expectStorageError(.usernameTaken, "a case variant") { () throws(StorageError) in
            try register(store, StoreSamples.user(2, name: "Alice"), StoreSamples.credential(2, owner: 2))
        }
        try register(store, StoreSamples.user(2, name: "Alicia"), StoreSamples.credential(2, owner: 2))
    }

    public static func registrationIsAtomicOnCredentialExists(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try register(store, StoreSamples.user(1), StoreSamples.credential(1, owner: 1))
        var reused = StoreSamples.credential(1, owner: 2)
        reused.name = "stolen"
        try expectStorageError(.credentialExists, "reused credential ID") { () throws(StorageError) in
            try register(store, StoreSamples.user(2), reused)
        }
        try expectEqual(try store.user(id: StoreSamples.userID(2)), nil, "user left behind by id")
        try expectEqual(try store.user(name: StoreSamples.user(2).name), nil, "user left behind by name")
        try expectEqual(try store.credential(id: reused.id), StoreSamples.credential(1, owner: 1), "original credential")
        try register(store, StoreSamples.user(2), StoreSamples.credential(2, owner: 2))
    }

    public static func registrationRequiresOwnCredential(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try register(store, StoreSamples.user(1), StoreSamples.credential(1, owner: 1))
        try expectStorageError(.notFound, "credential of another user") { () throws(StorageError) in
            try store.completeRegistration(
                newUser: StoreSamples.user(2),
                credential: StoreSamples.credential(2, owner: 1),
                session: StoreSamples.session(2, owner: 1),
                events: []
            )
        }
        try expectEqual(try store.user(id: StoreSamples.userID(2)), nil, "refused user")
        try expectEqual(try store.credentials(userID: StoreSamples.userID(1)).count, 1, "credentials of user 1")
    }

    public static func userIDsAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try register(store, StoreSamples.user(1), StoreSamples.credential(1, owner: 1))
        try expectStorageError(.duplicateKey, "same user handle") { () throws(StorageError) in
            try register(store, StoreSamples.user(1, name: "other"), StoreSamples.credential(2, owner: 1))
        }
        try expectStorageError(.duplicateKey, "same user handle, in a transaction") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(1, name: "other"), credential: StoreSamples.credential(2, owner: 1))
        }
        try expectEqual(try store.user(name: "other"), nil, "refused user")
        try expectEqual(try store.credential(id: StoreSamples.credential(2, owner: 1).id), nil, "refused credential")
    }

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

    /// Each owner with its own credential, every column of both (the owner's optional ones set); nil for a credential
    /// nobody has, and once its account is deleted.
    public static func credentialIsReadWithItsOwner(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var ann = StoreSamples.user(1)
        ann.email = "ann@example.com"
        ann.emailVerified = true
        let bob = StoreSamples.user(2)
        let annsKey = StoreSamples.credential(1, owner: 1)
        var bobsKey = StoreSamples.credential(2, owner: 2)
        bobsKey.lastUsedAt = StoreSamples.now.addingTimeInterval(-5.25)
        bobsKey.signCount = 9
        try store.seedUser(ann, credential: annsKey)
        try store.seedUser(bob, credential: bobsKey)
        let annsRead = try store.credentialWithOwner(id: annsKey.id)
        try expectEqual(annsRead?.credential, annsKey, "Ann's credential")
        try expectEqual(annsRead?.owner, try store.user(id: ann.id), "Ann")
        try expectEqual(annsRead?.owner.email, "ann@example.com", "Ann's email")
        let bobsRead = try store.credentialWithOwner(id: bobsKey.id)
        try expectEqual(bobsRead?.credential, bobsKey, "Bob's credential")
        try expectEqual(bobsRead?.owner, try store.user(id: bob.id), "Bob")
        try expectEqual(try store.credentialWithOwner(id: StoreSamples.credential(3, owner: 1).id) == nil, true, "unknown credential")
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: bob.id) }
        try expectEqual(try store.credentialWithOwner(id: bobsKey.id) == nil, true, "deleted account")
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

    public static func sessionsExpire(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let session = StoreSamples.session(1, owner: 1)
        try store.seedSession(session)
        try expectEqual(try store.session(tokenHash: session.tokenHash, now: StoreSamples.now), session, "live")
        try expectEqual(
            try store.session(tokenHash: session.tokenHash, now: session.expiresAt.addingTimeInterval(-0.001)),
            session,
            "just before expiry"
        )
        try expectEqual(try store.session(tokenHash: session.tokenHash, now: session.expiresAt), nil, "at expiry")
        try expectEqual(try store.session(tokenHash: session.tokenHash, now: session.expiresAt.addingTimeInterval(1)), nil, "after")
        try expectEqual(try store.session(tokenHash: [0x55], now: StoreSamples.now), nil, "unknown")
    }

    public static func sessionsAreDeleted(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let sessions = [
            StoreSamples.session(1, owner: 1), StoreSamples.session(2, owner: 1),
            StoreSamples.session(3, owner: 1), StoreSamples.session(4, owner: 2),
        ]
        for session in sessions {
            try store.seedSession(session)
        }
        let now = StoreSamples.now
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteSession(tokenHash: sessions[0].tokenHash) }
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteSession(tokenHash: sessions[0].tokenHash) }
        try expectEqual(try store.session(tokenHash: sessions[0].tokenHash, now: now), nil, "deleted")
        try expectEqual(try store.session(tokenHash: sessions[1].tokenHash, now: now), sessions[1], "kept")
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteSessions(userID: StoreSamples.userID(1), except: nil) }
        try expectEqual(try store.session(tokenHash: sessions[1].tokenHash, now: now), nil, "all of user 1")
        try expectEqual(try store.session(tokenHash: sessions[2].tokenHash, now: now), nil, "all of user 1")
        try expectEqual(try store.session(tokenHash: sessions[3].tokenHash, now: now), sessions[3], "user 2")
        try expectEqual(try store.user(id: StoreSamples.userID(1)), StoreSamples.user(1), "the user stays")
    }

    public static func insertSessionChecksKeys(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try expectStorageError(.notFound, "unknown user") { () throws(StorageError) in
            try store.seedSession(StoreSamples.session(1, owner: 1))
        }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        try store.seedSession(StoreSamples.session(1, owner: 1))
        try expectStorageError(.duplicateKey, "same token hash") { () throws(StorageError) in
            try store.seedSession(StoreSamples.session(1, owner: 2))
        }
        try expectEqual(
            try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: StoreSamples.now)?.userID,
            StoreSamples.userID(1),
            "original kept"
        )
    }

    public static func purgeExpiredSessionsCounts(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let now = StoreSamples.now
        for number: UInt8 in 1...4 {
            try store.seedSession(StoreSamples.session(number, owner: 1, expiresAt: now.addingTimeInterval(-Double(number - 1))))
        }
        try store.seedSession(StoreSamples.session(5, owner: 1, expiresAt: now.addingTimeInterval(10)))
        try expectEqual(try store.purgeExpiredSessions(now: now), 4, "purged")
        try expectEqual(try store.purgeExpiredSessions(now: now), 0, "purged again")
        try expectEqual(
            try store.session(tokenHash: StoreSamples.session(5, owner: 1).tokenHash, now: now)?.expiresAt,
            now.addingTimeInterval(10),
            "live one"
        )
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
