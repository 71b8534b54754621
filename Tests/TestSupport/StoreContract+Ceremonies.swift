import Dispatch
import Foundation
import Storage
import Synchronization

/// The clauses of the store contract for the writes that end a ceremony (`CeremonyStore`).
extension StoreContract {
    static let ceremonyChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "completeAuthentication records the assertion and stores the session", run: completeAuthenticationStoresBoth),
        StoreContractCheck(name: "completeAuthentication changes nothing when it fails", run: completeAuthenticationIsAtomic),
        StoreContractCheck(
            name: "completeAuthentication checks the counter against the stored one",
            run: completeAuthenticationChecksTheStoredCounter
        ),
        StoreContractCheck(name: "16 threads completing sign-ins: the highest counter stays", run: concurrentSignInsKeepTheHighestCounter),
        StoreContractCheck(name: "completeRegistration stores a new account with its session", run: completeRegistrationCreatesAccount),
        StoreContractCheck(name: "completeRegistration adds a credential with its session", run: completeRegistrationAddsCredential),
        StoreContractCheck(name: "completeRegistration changes nothing when it fails", run: completeRegistrationIsAtomic),
        StoreContractCheck(name: "completeRegistration stores the user and its credential", run: registrationStoresEverything),
        StoreContractCheck(name: "completeRegistration is atomic on credentialExists", run: registrationIsAtomicOnCredentialExists),
        StoreContractCheck(name: "completeRegistration refuses a foreign first credential", run: registrationRequiresOwnCredential),
    ]

    public static func completeAuthenticationStoresBoth(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var original = StoreSamples.credential(1, owner: 1)
        original.cloneWarning = true
        original.signCount = 2
        try store.seedUser(StoreSamples.user(1), credential: original)
        let usedAt = StoreSamples.now.addingTimeInterval(5.5)
        let session = StoreSamples.session(1, owner: 1)
        let owner = try store.completeAuthentication(
            AuthenticationUpdate(
                credentialID: original.id,
                signCount: 3,
                backupEligible: false,
                backupState: true,
                usedAt: usedAt,
                backupEligibilityChanged: true
            ),
            session: session,
            events: [],
            spending: nil,
            expecting: SignInExpectation(original)
        )
        try expectEqual(owner, try store.user(id: original.userID), "the owner as stored")
        var expected = original
        expected.signCount = 3
        expected.backupEligible = false
        expected.backupState = true
        expected.lastUsedAt = usedAt
        expected.backupEligibilityChanged = true
        try expectEqual(try store.credential(id: original.id), expected, "credential after the assertion (warnings kept)")
        try expectEqual(try store.session(tokenHash: session.tokenHash, now: StoreSamples.now), session, "session")

        let later = usedAt.addingTimeInterval(60)
        _ = try store.completeAuthentication(
            AuthenticationUpdate(
                credentialID: original.id,
                signCount: 4,
                backupEligible: false,
                backupState: false,
                usedAt: later,
                backupEligibilityChanged: false
            ),
            session: StoreSamples.session(2, owner: 1),
            events: [],
            spending: nil,
            expecting: SignInExpectation(expected)
        )
        expected.signCount = 4
        expected.backupState = false
        expected.lastUsedAt = later
        try expectEqual(try store.credential(id: original.id), expected, "warnings are never cleared")
    }

    public static func completeAuthenticationChecksTheStoredCounter(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 5
        try store.seedUser(StoreSamples.user(1), credential: credential)
        func complete(_ signCount: UInt32, _ session: UInt8) throws(StorageError) {
            _ = try store.completeAuthentication(
                AuthenticationUpdate(
                    credentialID: credential.id,
                    signCount: signCount,
                    backupEligible: true,
                    backupState: true,
                    usedAt: StoreSamples.now,
                    backupEligibilityChanged: true
                ),
                session: StoreSamples.session(session, owner: 1),
                events: [],
                spending: nil,
                expecting: SignInExpectation(credential)
            )
        }
        for (signCount, session): (UInt32, UInt8) in [(5, 1), (4, 2), (0, 3)] {
            try expectStorageError(.signCountNotIncreased, "counter \(signCount) after 5") { () throws(StorageError) in
                try complete(signCount, session)
            }
            try expectEqual(
                try store.session(tokenHash: StoreSamples.session(session, owner: 1).tokenHash, now: StoreSamples.now),
                nil,
                "no session after counter \(signCount)"
            )
        }
        try expectEqual(try store.credential(id: credential.id), credential, "credential unchanged")
        try complete(6, 4)
        try expectEqual(try store.credential(id: credential.id)?.signCount, 6, "counter 6 stored")

        // Authenticators without a counter always send 0 against a stored 0.
        var counterless = StoreSamples.credential(2, owner: 2)
        counterless.signCount = 0
        try store.seedUser(StoreSamples.user(2), credential: counterless)
        for session: UInt8 in [5, 6] {
            _ = try store.completeAuthentication(
                AuthenticationUpdate(
                    credentialID: counterless.id,
                    signCount: 0,
                    backupEligible: true,
                    backupState: true,
                    usedAt: StoreSamples.now,
                    backupEligibilityChanged: false
                ),
                session: StoreSamples.session(session, owner: 2),
                events: [],
                spending: nil,
                expecting: SignInExpectation(counterless)
            )
        }

        // recordAuthentication never lowers a counter.
        try store.transaction { transaction throws(StorageError) in
            try transaction.recordAuthentication(
                AuthenticationUpdate(
                    credentialID: credential.id,
                    signCount: 3,
                    backupEligible: true,
                    backupState: true,
                    usedAt: StoreSamples.now,
                    cloneWarning: true,
                    backupEligibilityChanged: false
                )
            )
        }
        try expectEqual(try store.credential(id: credential.id)?.signCount, 6, "counter kept by recordAuthentication")
        try expectEqual(try store.credential(id: credential.id)?.cloneWarning, true, "clone warning set")
    }

    public static func concurrentSignInsKeepTheHighestCounter(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 10
        try store.seedUser(StoreSamples.user(1), credential: credential)
        let credentialID = credential.id
        let expecting = SignInExpectation(credential)
        let accepted = Mutex<[UInt32]>([])
        let failures = Mutex<[StorageError]>([])
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        // Each thread presents a different counter above the one every verification read (10), in shuffled order.
        let counters = (UInt32(11)...26).shuffled()
        for (index, signCount) in counters.enumerated() {
            finished.enter()
            Thread {
                start.wait()
                do throws(StorageError) {
                    _ = try store.completeAuthentication(
                        AuthenticationUpdate(
                            credentialID: credentialID,
                            signCount: signCount,
                            backupEligible: true,
                            backupState: true,
                            usedAt: StoreSamples.now,
                            backupEligibilityChanged: false
                        ),
                        session: StoreSamples.session(UInt8(100 + index), owner: 1),
                        events: [],
                        spending: nil,
                        expecting: expecting
                    )
                    accepted.withLock { $0.append(signCount) }
                } catch  where error.code == .signCountNotIncreased {
                    // A higher counter was stored first: refused, as it must be.
                } catch {
                    failures.withLock { $0.append(error) }
                }
                finished.leave()
            }.start()
        }
        for _ in counters { start.signal() }
        finished.wait()
        try expectEqual(failures.withLock { $0 }, [], "errors")
        let acceptedCounters = accepted.withLock { $0 }
        try expect(acceptedCounters.contains(26), "the highest counter is accepted: \(acceptedCounters)")
        try expectEqual(try store.credential(id: credentialID)?.signCount, 26, "stored counter")
    }

    public static func completeAuthenticationIsAtomic(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var first = StoreSamples.credential(1, owner: 1)
        first.signCount = 0
        try store.seedUser(StoreSamples.user(1), credential: first)
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        try store.seedSession(StoreSamples.session(1, owner: 1))
        func complete(_ credentialID: [UInt8], _ session: SessionRecord) throws(StorageError) {
            _ = try store.completeAuthentication(
                AuthenticationUpdate(
                    credentialID: credentialID,
                    signCount: 1,
                    backupEligible: true,
                    backupState: true,
                    usedAt: StoreSamples.now,
                    backupEligibilityChanged: true
                ),
                session: session,
                events: [],
                spending: nil,
                expecting: SignInExpectation(first)
            )
        }
        try expectStorageError(.credentialChanged, "unknown credential") { () throws(StorageError) in
            try complete([1, 2, 3], StoreSamples.session(3, owner: 1))
        }
        try expectStorageError(.credentialChanged, "another user's credential") { () throws(StorageError) in
            try complete(first.id, StoreSamples.session(4, owner: 2))
        }
        try expectStorageError(.duplicateKey, "same token hash") { () throws(StorageError) in
            try complete(first.id, StoreSamples.session(1, owner: 1))
        }
        try expectEqual(try store.credential(id: first.id), first, "credential unchanged")
        for number: UInt8 in [3, 4] {
            try expectEqual(
                try store.session(tokenHash: StoreSamples.session(number, owner: 1).tokenHash, now: StoreSamples.now),
                nil,
                "no session \(number)"
            )
        }
        try expectEqual(
            try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: StoreSamples.now),
            StoreSamples.session(1, owner: 1),
            "original session kept"
        )
    }

    public static func completeRegistrationCreatesAccount(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let user = StoreSamples.user(1)
        let credential = StoreSamples.credential(1, owner: 1)
        let session = StoreSamples.session(1, owner: 1)
        try store.completeRegistration(newUser: user, credential: credential, session: session, events: [])
        try expectEqual(try store.user(id: user.id), user, "user")
        try expectEqual(try store.credentials(userID: user.id), [credential], "credentials")
        try expectEqual(try store.session(tokenHash: session.tokenHash, now: StoreSamples.now), session, "session")
    }

    public static func completeRegistrationAddsCredential(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let first = StoreSamples.credential(1, owner: 1)
        try store.seedUser(StoreSamples.user(1), credential: first)
        let second = StoreSamples.credential(2, owner: 1, createdAt: StoreSamples.now)
        let session = StoreSamples.session(1, owner: 1)
        try store.completeRegistration(newUser: nil, credential: second, session: session, events: [])
        try expectEqual(try store.credentials(userID: StoreSamples.userID(1)), [first, second], "credentials")
        try expectEqual(try store.session(tokenHash: session.tokenHash, now: StoreSamples.now), session, "session")
    }

    public static func completeRegistrationIsAtomic(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1, name: "alice"), credential: StoreSamples.credential(1, owner: 1))
        try store.seedSession(StoreSamples.session(1, owner: 1))
        let cases: [(code: StorageError.Code, what: String, newUser: UserRecord?, credential: CredentialRecord, session: SessionRecord)] = [
            (
                .usernameTaken, "username taken", StoreSamples.user(2, name: "alice"),
                StoreSamples.credential(2, owner: 2), StoreSamples.session(2, owner: 2)
            ),
            (
                .credentialExists, "credential ID taken, new account", StoreSamples.user(2),
                StoreSamples.credential(1, owner: 2), StoreSamples.session(2, owner: 2)
            ),
            (
                .duplicateKey, "session token hash taken, new account", StoreSamples.user(2),
                StoreSamples.credential(2, owner: 2), StoreSamples.session(1, owner: 2)
            ),
            (
                .notFound, "session of another user", StoreSamples.user(2),
                StoreSamples.credential(2, owner: 2), StoreSamples.session(2, owner: 1)
            ),
            (
                .notFound, "foreign first credential", StoreSamples.user(2),
                StoreSamples.credential(2, owner: 3), StoreSamples.session(2, owner: 3)
            ),
            (
                .notFound, "added to a missing user", nil,
                StoreSamples.credential(2, owner: 2), StoreSamples.session(2, owner: 2)
            ),
            (
                .credentialExists, "credential ID taken, added", nil,
                StoreSamples.credential(1, owner: 1), StoreSamples.session(2, owner: 1)
            ),
            (
                .duplicateKey, "session token hash taken, added", nil,
                StoreSamples.credential(2, owner: 1), StoreSamples.session(1, owner: 1)
            ),
        ]
        for failing in cases {
            try expectStorageError(failing.code, failing.what) { () throws(StorageError) in
                try store.completeRegistration(newUser: failing.newUser, credential: failing.credential, session: failing.session, events: [])
            }
        }
        try expectEqual(try store.user(id: StoreSamples.userID(2)), nil, "no new user")
        try expectEqual(try store.credential(id: StoreSamples.credential(2, owner: 2).id), nil, "no new credential")
        try expectEqual(try store.credentials(userID: StoreSamples.userID(1)), [StoreSamples.credential(1, owner: 1)], "credentials unchanged")
        try expectEqual(
            try store.session(tokenHash: StoreSamples.session(2, owner: 2).tokenHash, now: StoreSamples.now),
            nil,
            "no new session"
        )
        try expectEqual(
            try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: StoreSamples.now)?.userID,
            StoreSamples.userID(1),
            "original session kept"
        )
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
}
