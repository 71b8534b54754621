import Foundation
import Storage

/// The clauses of the store contract for the writes that end a ceremony (`CeremonyStore`).
extension StoreContract {
    static let ceremonyChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "completeAuthentication records the assertion and stores the session", run: completeAuthenticationStoresBoth),
        StoreContractCheck(name: "completeAuthentication changes nothing when it fails", run: completeAuthenticationIsAtomic),
        StoreContractCheck(name: "completeRegistration stores a new account with its session", run: completeRegistrationCreatesAccount),
        StoreContractCheck(name: "completeRegistration adds a credential with its session", run: completeRegistrationAddsCredential),
        StoreContractCheck(name: "completeRegistration changes nothing when it fails", run: completeRegistrationIsAtomic),
    ]

    public static func completeAuthenticationStoresBoth(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var original = StoreSamples.credential(1, owner: 1)
        original.cloneWarning = true
        try store.createUser(StoreSamples.user(1), firstCredential: original)
        let usedAt = StoreSamples.now.addingTimeInterval(5.5)
        let session = StoreSamples.session(1, owner: 1)
        try store.completeAuthentication(
            credentialID: original.id, signCount: 3, backupEligible: false, backupState: true, usedAt: usedAt,
            backupEligibilityChanged: true, session: session)
        var expected = original
        expected.signCount = 3
        expected.backupEligible = false
        expected.backupState = true
        expected.lastUsedAt = usedAt
        expected.backupEligibilityChanged = true
        try expectEqual(try store.credential(id: original.id), expected, "credential after the assertion (warnings kept)")
        try expectEqual(try store.session(tokenHash: session.tokenHash, now: StoreSamples.now), session, "session")

        let later = usedAt.addingTimeInterval(60)
        try store.completeAuthentication(
            credentialID: original.id, signCount: 4, backupEligible: false, backupState: false, usedAt: later,
            backupEligibilityChanged: false, session: StoreSamples.session(2, owner: 1))
        expected.signCount = 4
        expected.backupState = false
        expected.lastUsedAt = later
        try expectEqual(try store.credential(id: original.id), expected, "warnings are never cleared")
    }

    public static func completeAuthenticationIsAtomic(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let first = StoreSamples.credential(1, owner: 1)
        try store.createUser(StoreSamples.user(1), firstCredential: first)
        try store.createUser(StoreSamples.user(2), firstCredential: StoreSamples.credential(2, owner: 2))
        try store.createSession(StoreSamples.session(1, owner: 1))
        func complete(_ credentialID: [UInt8], _ session: SessionRecord) throws(StorageError) {
            try store.completeAuthentication(
                credentialID: credentialID, signCount: 1, backupEligible: true, backupState: true,
                usedAt: StoreSamples.now, backupEligibilityChanged: true, session: session)
        }
        try expectStorageError(StorageError.notFoundCode, "unknown credential") { () throws(StorageError) in
            try complete([1, 2, 3], StoreSamples.session(3, owner: 1))
        }
        try expectStorageError(StorageError.notFoundCode, "another user's credential") { () throws(StorageError) in
            try complete(first.id, StoreSamples.session(4, owner: 2))
        }
        try expectStorageError(StorageError.duplicateKeyCode, "same token hash") { () throws(StorageError) in
            try complete(first.id, StoreSamples.session(1, owner: 1))
        }
        try expectEqual(try store.credential(id: first.id), first, "credential unchanged")
        for number: UInt8 in [3, 4] {
            try expectEqual(
                try store.session(tokenHash: StoreSamples.session(number, owner: 1).tokenHash, now: StoreSamples.now), nil,
                "no session \(number)")
        }
        try expectEqual(
            try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: StoreSamples.now),
            StoreSamples.session(1, owner: 1), "original session kept")
    }

    public static func completeRegistrationCreatesAccount(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let user = StoreSamples.user(1)
        let credential = StoreSamples.credential(1, owner: 1)
        let session = StoreSamples.session(1, owner: 1)
        try store.completeRegistration(newUser: user, credential: credential, session: session)
        try expectEqual(try store.user(id: user.id), user, "user")
        try expectEqual(try store.credentials(userID: user.id), [credential], "credentials")
        try expectEqual(try store.session(tokenHash: session.tokenHash, now: StoreSamples.now), session, "session")
    }

    public static func completeRegistrationAddsCredential(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let first = StoreSamples.credential(1, owner: 1)
        try store.createUser(StoreSamples.user(1), firstCredential: first)
        let second = StoreSamples.credential(2, owner: 1, createdAt: StoreSamples.now)
        let session = StoreSamples.session(1, owner: 1)
        try store.completeRegistration(newUser: nil, credential: second, session: session)
        try expectEqual(try store.credentials(userID: StoreSamples.userID(1)), [first, second], "credentials")
        try expectEqual(try store.session(tokenHash: session.tokenHash, now: StoreSamples.now), session, "session")
    }

    public static func completeRegistrationIsAtomic(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.createUser(StoreSamples.user(1, name: "alice"), firstCredential: StoreSamples.credential(1, owner: 1))
        try store.createSession(StoreSamples.session(1, owner: 1))
        let cases: [(code: String, what: String, newUser: UserRecord?, credential: CredentialRecord, session: SessionRecord)] = [
            (StorageError.usernameTakenCode, "username taken", StoreSamples.user(2, name: "alice"),
             StoreSamples.credential(2, owner: 2), StoreSamples.session(2, owner: 2)),
            (StorageError.credentialExistsCode, "credential ID taken, new account", StoreSamples.user(2),
             StoreSamples.credential(1, owner: 2), StoreSamples.session(2, owner: 2)),
            (StorageError.duplicateKeyCode, "session token hash taken, new account", StoreSamples.user(2),
             StoreSamples.credential(2, owner: 2), StoreSamples.session(1, owner: 2)),
            (StorageError.notFoundCode, "session of another user", StoreSamples.user(2),
             StoreSamples.credential(2, owner: 2), StoreSamples.session(2, owner: 1)),
            (StorageError.notFoundCode, "foreign first credential", StoreSamples.user(2),
             StoreSamples.credential(2, owner: 3), StoreSamples.session(2, owner: 3)),
            (StorageError.notFoundCode, "added to a missing user", nil,
             StoreSamples.credential(2, owner: 2), StoreSamples.session(2, owner: 2)),
            (StorageError.credentialExistsCode, "credential ID taken, added", nil,
             StoreSamples.credential(1, owner: 1), StoreSamples.session(2, owner: 1)),
            (StorageError.duplicateKeyCode, "session token hash taken, added", nil,
             StoreSamples.credential(2, owner: 1), StoreSamples.session(1, owner: 1)),
        ]
        for failing in cases {
            try expectStorageError(failing.code, failing.what) { () throws(StorageError) in
                try store.completeRegistration(newUser: failing.newUser, credential: failing.credential, session: failing.session)
            }
        }
        try expectEqual(try store.user(id: StoreSamples.userID(2)), nil, "no new user")
        try expectEqual(try store.credential(id: StoreSamples.credential(2, owner: 2).id), nil, "no new credential")
        try expectEqual(try store.credentials(userID: StoreSamples.userID(1)), [StoreSamples.credential(1, owner: 1)], "credentials unchanged")
        try expectEqual(
            try store.session(tokenHash: StoreSamples.session(2, owner: 2).tokenHash, now: StoreSamples.now), nil, "no new session")
        try expectEqual(
            try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: StoreSamples.now)?.userID,
            StoreSamples.userID(1), "original session kept")
    }
}
