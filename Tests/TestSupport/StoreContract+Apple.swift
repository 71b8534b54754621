import Dispatch
import Foundation
import Storage
import Synchronization

/// The Sign in with Apple clauses of the store contract: identities (re-keyed, transferred, paged), their refresh tokens
/// and revocations, link declines, and the replay guard (nonces, notification watermarks).
extension StoreContract {
    static let appleChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "a user with an Apple identity is stored with both", run: createAppleUserStoresBoth),
        StoreContractCheck(name: "an Apple subject belongs to one account", run: appleSubjectsAreUnique),
        StoreContractCheck(name: "a user with an Apple identity is written atomically", run: createAppleUserIsAtomic),
        StoreContractCheck(name: "insertAppleIdentity requires the user", run: linkRequiresUser),
        StoreContractCheck(name: "Apple identities are listed, updated and unlinked", run: appleIdentitiesAreUpdated),
        StoreContractCheck(name: "deleteUser removes Apple identities but keeps revocations", run: deleteUserKeepsRevocations),
        StoreContractCheck(name: "rememberNonce accepts a hash once until it expires", run: noncesAreRememberedOnce),
        StoreContractCheck(name: "16 threads remembering one nonce: one winner", run: concurrentNonceHasOneWinner),
        StoreContractCheck(name: "purgeExpiredNonces forgets expired nonces only", run: expiredNoncesArePurged),
        StoreContractCheck(name: "revocations are due, rescheduled and completed", run: revocationQueueOrders),
        StoreContractCheck(name: "with an Apple identity the last credential may go", run: appleIdentityKeepsAccountReachable),
        StoreContractCheck(name: "updateAppleIdentity re-keys with its refresh tokens and sessions", run: identitiesAreReKeyed),
        StoreContractCheck(name: "transfer subjects are unique and found", run: transferSubjectsAreUnique),
        StoreContractCheck(name: "appleIdentities(after:limit:) pages byte-wise", run: identitiesArePaged),
        StoreContractCheck(name: "link declines are unordered pairs deleted with either account", run: linkDeclinesArePairs),
        StoreContractCheck(name: "notification watermarks rise, expire and are purged", run: watermarksRise),
    ]

    public static func appleIdentityKeepsAccountReachable(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let only = StoreSamples.credential(1, owner: 1)
        try store.seedUser(StoreSamples.user(1), credential: only)
        try store.seedUser(StoreSamples.user(2), appleIdentity: StoreSamples.appleIdentity("001.b", owner: 2))
        try store.seedAppleIdentity(StoreSamples.appleIdentity("001.a", owner: 2))
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteCredentialUnlessLast(id: only.id, userID: only.userID)
            },
            .lastCredential,
            "another user's identity does not count"
        )
        try store.seedAppleIdentity(StoreSamples.appleIdentity("001.c", owner: 1))
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteCredentialUnlessLast(id: only.id, userID: only.userID)
            },
            .deleted,
            "Sign in with Apple still opens the account"
        )
        try expectEqual(try store.credentials(userID: only.userID), [], "no credential left")
    }

    public static func createAppleUserStoresBoth(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let user = StoreSamples.user(1)
        let identity = StoreSamples.appleIdentity("001.a", owner: 1)
        try store.seedUser(user, appleIdentity: identity)
        try expectEqual(try store.user(id: user.id), user, "user")
        try expectEqual(try store.appleIdentity(subject: identity.subject), identity, "identity")
        try expectEqual(try store.appleIdentities(userID: user.id), [identity], "identities of the user")
        try expectEqual(try store.credentials(userID: user.id), [], "no credential")
        var bare = StoreSamples.appleIdentity("001.b", owner: 2)
        bare.email = nil
        bare.realUserStatus = nil
        bare.transferSubject = nil
        try store.seedUser(StoreSamples.user(2), appleIdentity: bare)
        try expectEqual(try store.appleIdentity(subject: "001.b"), bare, "identity without optional fields")
        try expectEqual(try store.appleIdentity(subject: "001.A"), nil, "subjects compare exactly")
    }

    public static func appleSubjectsAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), appleIdentity: StoreSamples.appleIdentity("001.a", owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        try expectStorageError(.appleIdentityTaken, "link to another account") { () throws(StorageError) in
            try store.seedAppleIdentity(StoreSamples.appleIdentity("001.a", owner: 2))
        }
        try expectStorageError(.appleIdentityTaken, "link twice to the same account") { () throws(StorageError) in
            try store.seedAppleIdentity(StoreSamples.appleIdentity("001.a", owner: 1))
        }
        try expectEqual(try store.appleIdentity(subject: "001.a")?.userID, StoreSamples.userID(1), "first owner keeps it")
        try expectEqual(try store.appleIdentities(userID: StoreSamples.userID(2)), [], "refused link")
    }

    public static func createAppleUserIsAtomic(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), appleIdentity: StoreSamples.appleIdentity("001.a", owner: 1))
        try expectStorageError(.appleIdentityTaken, "subject already linked") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(2), appleIdentity: StoreSamples.appleIdentity("001.a", owner: 2))
        }
        try expectEqual(try store.user(id: StoreSamples.userID(2)), nil, "user left behind")
        try expectStorageError(.usernameTaken, "username taken") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(3, name: StoreSamples.user(1).name), appleIdentity: StoreSamples.appleIdentity("001.c", owner: 3))
        }
        try expectEqual(try store.appleIdentity(subject: "001.c"), nil, "identity left behind")
        try expectStorageError(.notFound, "identity of a user that does not exist") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(4), appleIdentity: StoreSamples.appleIdentity("001.d", owner: 5))
        }
        try expectEqual(try store.user(id: StoreSamples.userID(4)), nil, "refused user")
        try expectStorageError(.duplicateKey, "same user handle") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(1, name: "other"), appleIdentity: StoreSamples.appleIdentity("001.e", owner: 1))
        }
        try expectEqual(try store.appleIdentity(subject: "001.e"), nil, "identity of the refused user")
    }

    public static func linkRequiresUser(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try expectStorageError(.notFound, "unknown user") { () throws(StorageError) in
            try store.seedAppleIdentity(StoreSamples.appleIdentity("001.a", owner: 1))
        }
        try expectEqual(try store.appleIdentity(subject: "001.a"), nil, "refused identity")
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedAppleIdentity(StoreSamples.appleIdentity("001.a", owner: 1))
        try expectEqual(try store.appleIdentity(subject: "001.a"), StoreSamples.appleIdentity("001.a", owner: 1), "linked identity")
    }

    public static func appleIdentitiesAreUpdated(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let first = StoreSamples.appleIdentity("001.z", owner: 1, createdAt: StoreSamples.now.addingTimeInterval(-3_600))
        try store.seedUser(StoreSamples.user(1), appleIdentity: first)
        let tieHigh = StoreSamples.appleIdentity("001.b", owner: 1)
        let tieLow = StoreSamples.appleIdentity("001.a", owner: 1)
        try store.seedAppleIdentity(tieHigh)
        try store.seedAppleIdentity(tieLow)
        try expectEqual(try store.appleIdentities(userID: StoreSamples.userID(1)), [first, tieLow, tieHigh], "order")

        var expected = tieLow
        expected.emailDisabled = true
        expected.consentRevoked = true
        expected.lastSignInAt = StoreSamples.now.addingTimeInterval(-5.5)
        expected.transferredAt = StoreSamples.now.addingTimeInterval(-7.25)
        expected.email = nil
        expected.realUserStatus = nil
        try expect(
            try store.transaction { transaction throws(StorageError) in try transaction.updateAppleIdentity(expected, subject: "001.a") },
            "identity updated"
        )
        try expectEqual(try store.appleIdentity(subject: "001.a"), expected, "every field written")
        try expect(
            !(try store.transaction { transaction throws(StorageError) in try transaction.updateAppleIdentity(expected, subject: "nobody") }),
            "unknown subject"
        )
        try expectEqual(try store.appleIdentity(subject: "nobody"), nil, "nothing made for an unknown subject")

        let sealed: [UInt8] = [0, 1, 2, 0xFF] + [UInt8](repeating: 7, count: 40)
        try expect(
            try store.transaction { transaction throws(StorageError) in
                try transaction.setAppleRefreshToken(subject: "001.a", clientID: "com.example.web", encryptedToken: sealed)
            },
            "token set"
        )
        try expect(
            try store.transaction { transaction throws(StorageError) in
                try transaction.setAppleRefreshToken(subject: "001.a", clientID: "com.example.app", encryptedToken: [1])
            },
            "a second client's token set"
        )
        try expect(
            try store.transaction { transaction throws(StorageError) in
                try transaction.setAppleRefreshToken(subject: "001.a", clientID: "com.example.app", encryptedToken: [2, 2])
            },
            "the first client's token replaced"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.appleRefreshTokens(subject: "001.a") },
            [
                AppleRefreshTokenRecord(subject: "001.a", clientID: "com.example.app", encryptedToken: [2, 2]),
                AppleRefreshTokenRecord(subject: "001.a", clientID: "com.example.web", encryptedToken: sealed),
            ],
            "one token per client ID, ordered by client ID"
        )
        try expect(
            !(try store.transaction { transaction throws(StorageError) in
                try transaction.setAppleRefreshToken(subject: "nobody", clientID: "x", encryptedToken: sealed)
            }),
            "unknown subject"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.appleRefreshTokens(subject: "nobody") },
            [],
            "no token stored for an unknown subject"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteAppleRefreshTokens(subject: "001.b") },
            [],
            "an identity without tokens"
        )

        try expect(try store.transaction { transaction throws(StorageError) in try transaction.deleteAppleIdentity(subject: "001.a") }, "unlinked")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.appleRefreshTokens(subject: "001.a") },
            [],
            "its refresh tokens went with it"
        )
        try expect(
            !(try store.transaction { transaction throws(StorageError) in try transaction.deleteAppleIdentity(subject: "001.a") }),
            "unlinked twice"
        )
        try expectEqual(try store.appleIdentities(userID: StoreSamples.userID(1)), [first, tieHigh], "after unlinking")
        try expectEqual(try store.user(id: StoreSamples.userID(1)), StoreSamples.user(1), "the account stays")
    }

    public static func deleteUserKeepsRevocations(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), appleIdentity: StoreSamples.appleIdentity("001.a", owner: 1))
        try store.seedUser(StoreSamples.user(2), appleIdentity: StoreSamples.appleIdentity("001.b", owner: 2))
        let queued = try store.transaction { transaction throws(StorageError) in
            try transaction.enqueueRevocation(token: [9, 9, 9], clientID: "com.example.app", notBefore: StoreSamples.now)
        }
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(1)) }
        try expectEqual(try store.appleIdentity(subject: "001.a"), nil, "identity of the deleted user")
        try expectEqual(try store.appleIdentities(userID: StoreSamples.userID(1)), [], "identities of the deleted user")
        try expectEqual(try store.appleIdentity(subject: "001.b")?.userID, StoreSamples.userID(2), "other user's identity")
        try expectEqual(try store.dueRevocations(now: StoreSamples.now, limit: 10).map(\.id), [queued], "revocation kept")
        try store.seedUser(StoreSamples.user(3), appleIdentity: StoreSamples.appleIdentity("001.a", owner: 3))
    }

    public static func noncesAreRememberedOnce(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        let hash = [UInt8](repeating: 0x4E, count: 32)
        try expect(
            try store.transaction { transaction throws(StorageError) in
                try transaction.rememberNonce(hash, until: now.addingTimeInterval(600), now: now)
            },
            "first use"
        )
        try expect(
            !(try store.transaction { transaction throws(StorageError) in
                try transaction.rememberNonce(hash, until: now.addingTimeInterval(900), now: now.addingTimeInterval(1))
            }),
            "replay"
        )
        try expect(
            !(try store.transaction { transaction throws(StorageError) in
                try transaction.rememberNonce(hash, until: now.addingTimeInterval(900), now: now.addingTimeInterval(599.9))
            }),
            "replay just before expiry"
        )
        try expect(
            try store.transaction { transaction throws(StorageError) in
                try transaction.rememberNonce([UInt8](repeating: 0x4F, count: 32), until: now.addingTimeInterval(600), now: now)
            },
            "another hash"
        )
        try expect(
            try store.transaction { transaction throws(StorageError) in
                try transaction.rememberNonce(hash, until: now.addingTimeInterval(1200), now: now.addingTimeInterval(600))
            },
            "expired entry replaced"
        )
        try expect(
            !(try store.transaction { transaction throws(StorageError) in
                try transaction.rememberNonce(hash, until: now.addingTimeInterval(1300), now: now.addingTimeInterval(1199))
            }),
            "replacement remembered"
        )
    }

    public static func expiredNoncesArePurged(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        func remember(_ hash: UInt8, until: TimeInterval, at: TimeInterval) throws(StorageError) -> Bool {
            try store.transaction { transaction throws(StorageError) in
                try transaction.rememberNonce([hash], until: now.addingTimeInterval(until), now: now.addingTimeInterval(at))
            }
        }
        try expect(try remember(1, until: 10, at: 0), "first")
        try expect(try remember(2, until: 20, at: 0), "second")
        try expect(try remember(3, until: 0, at: -1), "third, expiring now")
        try expectEqual(try store.purgeExpiredNonces(now: now.addingTimeInterval(10)), 2, "purged")
        try expectEqual(try store.purgeExpiredNonces(now: now.addingTimeInterval(10)), 0, "purged again")
        try expect(!(try remember(2, until: 30, at: 15)), "the unexpired one is kept")
        try expect(try remember(1, until: 30, at: 15), "a purged one is forgotten")
    }

    public static func concurrentNonceHasOneWinner(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let hash = [UInt8](repeating: 0x77, count: 32)
        let winners = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            do {
                let won = try store.transaction { transaction throws(StorageError) in
                    try transaction.rememberNonce(hash, until: StoreSamples.now.addingTimeInterval(60), now: StoreSamples.now)
                }
                if won {
                    winners.add(1, ordering: .relaxed)
                }
            } catch {
                failures.add(1, ordering: .relaxed)
            }
        }
        try expectEqual(failures.load(ordering: .relaxed), 0, "failed calls")
        try expectEqual(winners.load(ordering: .relaxed), 1, "winners")
    }

    public static func revocationQueueOrders(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        try expectEqual(try store.dueRevocations(now: now, limit: 10), [], "empty queue")
        let later = try store.transaction { transaction throws(StorageError) in
            try transaction.enqueueRevocation(token: [1], clientID: "com.example.a", notBefore: now.addingTimeInterval(60))
        }
        let first = try store.transaction { transaction throws(StorageError) in
            try transaction.enqueueRevocation(token: [2, 2], clientID: "com.example.b", notBefore: now)
        }
        let second = try store.transaction { transaction throws(StorageError) in
            try transaction.enqueueRevocation(token: [3], clientID: "com.example.c", notBefore: now)
        }
        try expect(first < second && later < first, "IDs increase in insertion order")
        try expectEqual(
            try store.dueRevocations(now: now, limit: 10),
            [
                AppleRevocationRecord(id: first, encryptedToken: [2, 2], clientID: "com.example.b", notBefore: now, attempts: 0),
                AppleRevocationRecord(id: second, encryptedToken: [3], clientID: "com.example.c", notBefore: now, attempts: 0),
            ],
            "due entries"
        )
        try expectEqual(try store.dueRevocations(now: now, limit: 1).map(\.id), [first], "limit")
        try store.rescheduleRevocation(id: first, notBefore: now.addingTimeInterval(120))
        try expectEqual(try store.dueRevocations(now: now.addingTimeInterval(60), limit: 10).map(\.id), [second, later], "after rescheduling")
        try expectEqual(
            try store.dueRevocations(now: now.addingTimeInterval(120), limit: 10).last,
            AppleRevocationRecord(id: first, encryptedToken: [2, 2], clientID: "com.example.b", notBefore: now.addingTimeInterval(120), attempts: 1),
            "attempts counted"
        )
        try store.completeRevocation(id: second)
        try store.completeRevocation(id: second)
        try store.rescheduleRevocation(id: second, notBefore: now)
        try expectEqual(try store.dueRevocations(now: now.addingTimeInterval(120), limit: 10).map(\.id), [later, first], "after completing")
    }

    public static func identitiesAreReKeyed(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), appleIdentity: StoreSamples.appleIdentity("001.old", owner: 1))
        try store.seedUser(StoreSamples.user(2), appleIdentity: StoreSamples.appleIdentity("001.other", owner: 2))
        try store.seedSession(StoreSamples.appleSession(1, owner: 1, subject: "001.old"))
        try store.seedSession(StoreSamples.appleSession(2, owner: 2, subject: "001.other"))
        _ = try store.transaction { transaction throws(StorageError) in
            try transaction.setAppleRefreshToken(subject: "001.old", clientID: "com.example.app", encryptedToken: [1, 2, 3])
        }
        var rekeyed = StoreSamples.appleIdentity("002.new", owner: 1)
        rekeyed.transferSubject = "transfer-001.old"
        rekeyed.transferredAt = StoreSamples.now
        try expect(
            try store.transaction { transaction throws(StorageError) in try transaction.updateAppleIdentity(rekeyed, subject: "001.old") },
            "re-keyed"
        )
        try expectEqual(try store.appleIdentity(subject: "001.old"), nil, "the old subject is gone")
        try expectEqual(try store.appleIdentity(subject: "002.new"), rekeyed, "the new subject has every field")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.appleRefreshTokens(subject: "002.new") },
            [AppleRefreshTokenRecord(subject: "002.new", clientID: "com.example.app", encryptedToken: [1, 2, 3])],
            "the refresh tokens followed"
        )
        let movedSessions = try store.transaction { transaction throws(StorageError) in
            try transaction.moveSessions(appleSubject: "001.old", to: "002.new")
        }
        try expectEqual(movedSessions, 1, "sessions moved")
        try expectEqual(
            try store.sessions(userID: StoreSamples.userID(1), now: StoreSamples.now).map(\.appleSubject),
            ["002.new"],
            "the session names the new subject"
        )
        try expectEqual(
            try store.sessions(userID: StoreSamples.userID(2), now: StoreSamples.now).map(\.appleSubject),
            ["001.other"],
            "another identity's session is left alone"
        )
        var collision = rekeyed
        collision.subject = "001.other"
        try expectStorageError(.appleIdentityTaken, "re-keyed onto another identity's subject") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in try transaction.updateAppleIdentity(collision, subject: "002.new") }
        }
        var orphan = rekeyed
        orphan.userID = StoreSamples.userID(9)
        try expectStorageError(.notFound, "moved to a user that does not exist") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in try transaction.updateAppleIdentity(orphan, subject: "002.new") }
        }
        try expectEqual(try store.appleIdentity(subject: "002.new"), rekeyed, "refused updates change nothing")
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(1)) }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.appleRefreshTokens(subject: "002.new") },
            [],
            "refresh tokens go with the account"
        )
    }

    public static func transferSubjectsAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), appleIdentity: StoreSamples.appleIdentity("001.a", owner: 1))
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.appleIdentity(transferSubject: "transfer-001.a") },
            Optional(StoreSamples.appleIdentity("001.a", owner: 1)),
            "found by its transfer subject"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.appleIdentity(transferSubject: "transfer-nobody") },
            nil,
            "unknown transfer subject"
        )
        var twin = StoreSamples.appleIdentity("001.b", owner: 1)
        twin.transferSubject = "transfer-001.a"
        try expectStorageError(.duplicateKey, "a second identity with the same transfer subject") { () throws(StorageError) in
            try store.seedAppleIdentity(twin)
        }
        twin.transferSubject = nil
        try store.seedAppleIdentity(twin)
        var third = StoreSamples.appleIdentity("001.c", owner: 1)
        third.transferSubject = nil
        try store.seedAppleIdentity(third)
        twin.transferSubject = "transfer-001.a"
        try expectStorageError(.duplicateKey, "updated onto another identity's transfer subject") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in try transaction.updateAppleIdentity(twin, subject: "001.b") }
        }
        twin.transferSubject = "transfer-001.b"
        try expect(
            try store.transaction { transaction throws(StorageError) in try transaction.updateAppleIdentity(twin, subject: "001.b") },
            "a transfer subject of its own"
        )
    }

    public static func identitiesArePaged(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let subjects = ["001.b", "001.A", "001.a", "001.é", "002.z", "001.Z"]
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        for subject in subjects {
            var identity = StoreSamples.appleIdentity(subject, owner: 1)
            identity.transferSubject = nil
            try store.seedAppleIdentity(identity)
        }
        func page(after subject: String?, limit: Int) throws(StorageError) -> [String] {
            try store.transaction { transaction throws(StorageError) in try transaction.appleIdentities(after: subject, limit: limit) }.map(\.subject)
        }
        let sorted = subjects.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        try expectEqual(try page(after: nil, limit: 4), Array(sorted.prefix(4)), "the first page, byte-wise")
        try expectEqual(try page(after: sorted[3], limit: 4), Array(sorted.dropFirst(4)), "the next page")
        try expectEqual(try page(after: sorted.last, limit: 4), [], "past the end")
        try expectEqual(try page(after: nil, limit: 0), [], "limit 0")
    }

    public static func linkDeclinesArePairs(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        for number: UInt8 in 1...3 {
            try store.seedUser(StoreSamples.user(number), credential: StoreSamples.credential(number, owner: number))
        }
        let pair = LinkDecline(StoreSamples.userID(2), StoreSamples.userID(1))
        try expectEqual(pair, LinkDecline(StoreSamples.userID(1), StoreSamples.userID(2)), "either order is the same pair")
        func declined(_ first: UInt8, _ second: UInt8) throws(StorageError) -> Bool {
            try store.transaction { transaction throws(StorageError) in
                try transaction.isLinkDeclined(LinkDecline(StoreSamples.userID(first), StoreSamples.userID(second)))
            }
        }
        try expect(!(try declined(1, 2)), "nothing declined yet")
        for _ in 0..<2 {
            try store.transaction { transaction throws(StorageError) in try transaction.insertLinkDecline(pair) }
        }
        try expect(try declined(1, 2) && (try declined(2, 1)), "declined, idempotently, both ways")
        try expect(!(try declined(1, 3)), "another pair")
        try expectStorageError(.notFound, "a pair with a user that does not exist") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                try transaction.insertLinkDecline(LinkDecline(StoreSamples.userID(1), StoreSamples.userID(9)))
            }
        }
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(2)) }
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        try expect(!(try declined(1, 2)), "deleted with the account")
    }

    public static func watermarksRise(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        func watermark(_ subject: String, at: TimeInterval = 0) throws(StorageError) -> Date? {
            try store.transaction { transaction throws(StorageError) in
                try transaction.appleNotificationWatermark(subject: subject, now: now.addingTimeInterval(at))
            }
        }
        func raise(_ subject: String, to eventAt: TimeInterval, until: TimeInterval, at: TimeInterval = 0) throws(StorageError) {
            try store.transaction { transaction throws(StorageError) in
                try transaction.raiseAppleNotificationWatermark(
                    subject: subject,
                    to: now.addingTimeInterval(eventAt),
                    until: now.addingTimeInterval(until),
                    now: now.addingTimeInterval(at)
                )
            }
        }
        try expectEqual(try watermark("001.a"), nil, "none yet")
        try raise("001.a", to: -100.5, until: 600)
        try expectEqual(try watermark("001.a"), now.addingTimeInterval(-100.5), "raised")
        try raise("001.a", to: -200, until: 300)
        try expectEqual(try watermark("001.a"), now.addingTimeInterval(-100.5), "an older time does not lower it")
        try expectEqual(try watermark("001.a", at: 599), now.addingTimeInterval(-100.5), "kept until the later expiry")
        try raise("001.a", to: -50, until: 700)
        try expectEqual(try watermark("001.a"), now.addingTimeInterval(-50), "a newer time raises it")
        try expectEqual(try watermark("001.b"), nil, "per subject")
        try expectEqual(try watermark("001.a", at: 700), nil, "expired")
        try raise("001.a", to: -300, until: 2_000, at: 700)
        try expectEqual(try watermark("001.a", at: 700), now.addingTimeInterval(-300), "an expired entry is replaced, not raised")
        try raise("001.b", to: 0, until: 10)
        try expectEqual(try store.purgeExpiredNonces(now: now.addingTimeInterval(10)), 1, "the expired watermark purged")
        try expectEqual(try watermark("001.a", at: 10), now.addingTimeInterval(-300), "the other is kept")
    }
}
