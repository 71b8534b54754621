import Foundation
import Storage

/// The clauses of the store contract for what sessions carry and the ways they end.
extension StoreContract {
    static let sessionChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "sessions keep every field and are listed in order", run: sessionsKeepEveryField),
        StoreContractCheck(name: "session IDs are unique and fields bounded", run: sessionIDsAreUnique),
        StoreContractCheck(name: "a session is deleted by its ID for its user only", run: sessionIsDeletedByID),
        StoreContractCheck(name: "a user's sessions are deleted all but one", run: sessionsAreDeletedButOne),
        StoreContractCheck(name: "sessions are deleted by passkey and by Apple identity", run: sessionsAreDeletedBySignInMethod),
        StoreContractCheck(name: "recordSessionUse sets lastUsedAt", run: sessionUseIsRecorded),
        StoreContractCheck(name: "sessions are found until they expire", run: sessionsExpire),
        StoreContractCheck(name: "sessions are deleted one or all", run: sessionsAreDeleted),
        StoreContractCheck(name: "insertSession checks user and duplicates", run: insertSessionChecksKeys),
        StoreContractCheck(name: "purgeExpiredSessions counts", run: purgeExpiredSessionsCounts),
        StoreContractCheck(name: "a session is found by its public ID until it expires", run: sessionIsFoundByID),
    ]

    public static func sessionsKeepEveryField(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedAppleIdentity(StoreSamples.appleIdentity("001.a", owner: 1))
        let now = StoreSamples.now
        var used = StoreSamples.session(1, owner: 1)
        used.lastUsedAt = now.addingTimeInterval(-5.5)
        let apple = StoreSamples.appleSession(2, owner: 1, subject: "001.a")
        var older = StoreSamples.session(3, owner: 1)
        older.createdAt = now.addingTimeInterval(-600)
        var tie = StoreSamples.session(0, owner: 1)
        tie.createdAt = used.createdAt
        let expired = StoreSamples.session(4, owner: 1, expiresAt: now)
        for session in [used, apple, older, tie, expired] {
            try store.seedSession(session)
        }
        try expectEqual(try store.session(tokenHash: used.tokenHash, now: now), used, "passkey session")
        try expectEqual(try store.session(tokenHash: apple.tokenHash, now: now), apple, "Apple session")
        try expectEqual(try store.sessions(userID: StoreSamples.userID(1), now: now), [older, tie, used, apple], "listed")
        try expectEqual(try store.sessions(userID: StoreSamples.userID(2), now: now), [], "another user's")
        try expectEqual(apple.authenticatedAt, apple.createdAt, "authenticatedAt defaults to createdAt")
    }

    public static func sessionIDsAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedSession(StoreSamples.session(1, owner: 1))
        var sameID = StoreSamples.session(2, owner: 1)
        sameID.id = StoreSamples.session(1, owner: 1).id
        try expectStorageError(.duplicateKey, "the same public ID") { () throws(StorageError) in try store.seedSession(sameID) }
        var shortID = StoreSamples.session(3, owner: 1)
        shortID.id = [1, 2, 3]
        try expectStorageError(.invalidRecord, "an ID of 3 bytes") { () throws(StorageError) in try store.seedSession(shortID) }
        var longAgent = StoreSamples.session(4, owner: 1)
        longAgent.userAgent = String(repeating: "a", count: SessionRecord.maximumUserAgentBytes + 1)
        try expectStorageError(.invalidRecord, "a long user agent") { () throws(StorageError) in try store.seedSession(longAgent) }
        try expectStorageError(.invalidRecord, "a long user agent in a ceremony") { () throws(StorageError) in
            try store.completeRegistration(
                newUser: nil,
                credential: StoreSamples.credential(5, owner: 1),
                session: longAgent,
                events: []
            )
        }
        var bounded = StoreSamples.session(5, owner: 1)
        bounded.userAgent = SessionRecord.boundedUserAgent(String(repeating: "é", count: 200))
        try store.seedSession(bounded)
        try expectEqual(try store.session(tokenHash: bounded.tokenHash, now: StoreSamples.now)?.userAgent?.utf8.count, 256, "a bounded agent")
        try expectEqual(
            try store.sessions(userID: StoreSamples.userID(1), now: StoreSamples.now).map(\.tokenHash),
            [StoreSamples.session(1, owner: 1).tokenHash, bounded.tokenHash],
            "only the valid sessions"
        )
        try expectEqual(try store.credential(id: StoreSamples.credential(5, owner: 1).id), nil, "the refused ceremony's credential")
    }

    public static func sessionIsDeletedByID(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let mine = StoreSamples.session(1, owner: 1)
        let theirs = StoreSamples.session(2, owner: 2)
        try store.seedSession(mine)
        try store.seedSession(theirs)
        let now = StoreSamples.now
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSession(id: theirs.id, userID: mine.userID) },
            [],
            "another user's session"
        )
        try expectEqual(try store.session(tokenHash: theirs.tokenHash, now: now), theirs, "another user's session stays")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSession(id: mine.id, userID: mine.userID) },
            [mine],
            "own session"
        )
        try expectEqual(try store.session(tokenHash: mine.tokenHash, now: now), nil, "deleted")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSession(id: mine.id, userID: mine.userID) },
            [],
            "deleted twice"
        )
    }

    public static func sessionsAreDeletedButOne(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let current = StoreSamples.session(1, owner: 1)
        var others = [StoreSamples.session(3, owner: 1), StoreSamples.session(2, owner: 1, expiresAt: StoreSamples.now)]
        others[1].createdAt = StoreSamples.now.addingTimeInterval(-3_000)
        let theirs = StoreSamples.session(4, owner: 2)
        for session in [current, theirs] + others {
            try store.seedSession(session)
        }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                try transaction.deleteSessions(userID: current.userID, except: current.id)
            },
            [others[1], others[0]],
            "the others, expired ones too, in order"
        )
        let now = StoreSamples.now
        try expectEqual(try store.sessions(userID: current.userID, now: now), [current], "the kept one")
        try expectEqual(try store.session(tokenHash: theirs.tokenHash, now: now), theirs, "another user's")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSessions(userID: current.userID, except: nil) },
            [current],
            "all"
        )
        try expectEqual(try store.session(tokenHash: theirs.tokenHash, now: now), theirs, "another user's, still")
    }

    public static func sessionsAreDeletedBySignInMethod(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedCredential(StoreSamples.credential(5, owner: 1))
        try store.seedAppleIdentity(StoreSamples.appleIdentity("001.a", owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let byPasskey = StoreSamples.session(1, owner: 1)
        var byOtherPasskey = StoreSamples.session(2, owner: 1)
        byOtherPasskey.credentialID = StoreSamples.credential(5, owner: 1).id
        let byApple = StoreSamples.appleSession(3, owner: 1, subject: "001.a")
        let byAnotherApple = StoreSamples.appleSession(4, owner: 1, subject: "001.b")
        let otherUser = StoreSamples.session(5, owner: 2)
        for session in [byPasskey, byOtherPasskey, byApple, byAnotherApple, otherUser] {
            try store.seedSession(session)
        }
        let now = StoreSamples.now
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSessions(appleSubject: "001.a") },
            [byApple],
            "the identity's sessions"
        )
        try expectEqual(try store.sessions(userID: StoreSamples.userID(1), now: now), [byPasskey, byOtherPasskey, byAnotherApple], "the rest")
        try expectEqual(try store.session(tokenHash: otherUser.tokenHash, now: now), otherUser, "another user's")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSessions(appleSubject: "001.a") },
            [],
            "none left"
        )
    }

    public static func sessionUseIsRecorded(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let session = StoreSamples.session(1, owner: 1)
        try store.seedSession(session)
        let usedAt = StoreSamples.now.addingTimeInterval(12.125)
        try store.recordSessionUse(tokenHash: session.tokenHash, at: usedAt)
        var expected = session
        expected.lastUsedAt = usedAt
        try expectEqual(try store.session(tokenHash: session.tokenHash, now: StoreSamples.now), expected, "lastUsedAt")
        try store.recordSessionUse(tokenHash: [0x77], at: usedAt)
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

    public static func sessionIsFoundByID(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let session = StoreSamples.session(1, owner: 1)
        let other = StoreSamples.session(2, owner: 1)
        try store.seedSession(session)
        try store.seedSession(other)
        try expectEqual(try store.session(id: session.id, now: StoreSamples.now), session, "by ID")
        try expectEqual(try store.session(id: other.id, now: StoreSamples.now), other, "the other by ID")
        try expectEqual(try store.session(id: session.id, now: session.expiresAt.addingTimeInterval(-0.001)), session, "just before expiry")
        try expectEqual(try store.session(id: session.id, now: session.expiresAt), nil, "at expiry")
        try expectEqual(try store.session(id: session.tokenHash, now: StoreSamples.now), nil, "a token hash is not an ID")
        try expectEqual(try store.session(id: [UInt8](repeating: 7, count: 16), now: StoreSamples.now), nil, "unknown")
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteSession(tokenHash: session.tokenHash) }
        try expectEqual(try store.session(id: session.id, now: StoreSamples.now), nil, "after logout")
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(1)) }
        try expectEqual(try store.session(id: other.id, now: StoreSamples.now), nil, "after the account is deleted")
    }
}
