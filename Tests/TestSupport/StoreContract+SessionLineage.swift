import Foundation
import Storage

/// The clauses of the store contract for the sessions that end with another: a hand-off session with the session that
/// made its link (`parentID`), and the sessions an identity at an OpenID provider signed in.
extension StoreContract {
    static let sessionLineageChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "hand-off and federated sessions keep their fields, bounded", run: lineageFieldsAreKept),
        StoreContractCheck(name: "every session deletion takes the sessions handed off from it", run: handOffsEndWithTheirParent),
        StoreContractCheck(name: "a hand-off session whose parent is gone or expired is not found", run: orphansAreNotFound),
        StoreContractCheck(name: "sessions are deleted by federated identity", run: sessionsAreDeletedByFederatedIdentity),
    ]

    /// A session the identity (`issuer`, `subject`) signed in.
    static func federatedSession(_ number: UInt8, owner: UInt8, issuer: String, subject: String) -> SessionRecord {
        var session = StoreSamples.session(number, owner: owner)
        session.method = .identityProvider
        session.credentialID = nil
        (session.federatedIssuer, session.federatedSubject) = (issuer, subject)
        return session
    }

    /// A session handed off from `parent`, numbered `number`, created a second after it.
    static func handOff(_ number: UInt8, from parent: SessionRecord) -> SessionRecord {
        var session = StoreSamples.session(number, owner: 1)
        session.userID = parent.userID
        session.credentialID = nil
        session.method = .recoveryCode
        session.parentID = parent.id
        session.createdAt = parent.createdAt.addingTimeInterval(1)
        return session
    }

    public static func lineageFieldsAreKept(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let federated = federatedSession(1, owner: 1, issuer: "https://accounts.google.com", subject: "1234567890")
        let child = handOff(2, from: federated)
        try store.seedSession(federated)
        try store.seedSession(child)
        let now = StoreSamples.now
        try expectEqual(try store.session(tokenHash: federated.tokenHash, now: now), federated, "a federated session")
        try expectEqual(try store.session(tokenHash: child.tokenHash, now: now), child, "a hand-off session")
        try expectEqual(try store.session(id: child.id, now: now), child, "a hand-off session by its ID")
        try expectEqual(try store.sessions(userID: StoreSamples.userID(1), now: now), [federated, child], "listed")
        var shortParent = StoreSamples.session(3, owner: 1)
        shortParent.parentID = [1, 2, 3]
        try expectStorageError(.invalidRecord, "a parent ID of 3 bytes") { () throws(StorageError) in try store.seedSession(shortParent) }
        var ownParent = StoreSamples.session(3, owner: 1)
        ownParent.parentID = ownParent.id
        try expectStorageError(.invalidRecord, "its own parent") { () throws(StorageError) in try store.seedSession(ownParent) }
        var half = StoreSamples.session(3, owner: 1)
        half.federatedIssuer = "https://accounts.google.com"
        try expectStorageError(.invalidRecord, "an issuer without a subject") { () throws(StorageError) in try store.seedSession(half) }
        let long = federatedSession(
            3,
            owner: 1,
            issuer: "https://a",
            subject: String(repeating: "s", count: FederatedIdentityRecord.maximumSubjectBytes + 1)
        )
        try expectStorageError(.invalidRecord, "a long subject") { () throws(StorageError) in try store.seedSession(long) }
        let empty = federatedSession(3, owner: 1, issuer: "", subject: "1")
        try expectStorageError(.invalidRecord, "an empty issuer") { () throws(StorageError) in try store.seedSession(empty) }
        try expectEqual(try store.sessions(userID: StoreSamples.userID(1), now: now).count, 2, "none of the refused ones")
    }

    public static func handOffsEndWithTheirParent(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedAppleIdentity(StoreSamples.appleIdentity("001.a", owner: 1))
        let now = StoreSamples.now
        let bystander = StoreSamples.session(9, owner: 1)
        try store.seedSession(bystander)
        /// Seeds a parent numbered `base`, its hand-off and the hand-off's own, then checks that `deletion` ends all three.
        func check(
            _ base: UInt8,
            parent: SessionRecord,
            _ name: String,
            _ deletion: (any StoreTransaction) throws(StorageError) -> [SessionRecord]
        ) throws {
            let child = handOff(base + 1, from: parent)
            let grandchild = handOff(base + 2, from: child)
            for session in [parent, child, grandchild] {
                try store.seedSession(session)
            }
            try expectEqual(try store.transaction(deletion), [parent, child, grandchild], name)
            for session in [parent, child, grandchild] {
                try expectEqual(try store.session(tokenHash: session.tokenHash, now: now), nil, "\(name): gone")
            }
            try expectEqual(try store.session(tokenHash: bystander.tokenHash, now: now), bystander, "\(name): another session stays")
        }
        let byToken = StoreSamples.session(10, owner: 1)
        try check(10, parent: byToken, "by token hash") { transaction throws(StorageError) in
            try transaction.deleteSession(tokenHash: byToken.tokenHash)
        }
        let byID = StoreSamples.session(20, owner: 1)
        try check(20, parent: byID, "by ID") { transaction throws(StorageError) in try transaction.deleteSession(id: byID.id, userID: byID.userID) }
        let byApple = StoreSamples.appleSession(40, owner: 1, subject: "001.a")
        try check(40, parent: byApple, "by Apple identity") { transaction throws(StorageError) in
            try transaction.deleteSessions(appleSubject: "001.a")
        }
        let byIdentity = federatedSession(50, owner: 1, issuer: "https://idp.example", subject: "u1")
        try check(50, parent: byIdentity, "by federated identity") { transaction throws(StorageError) in
            try transaction.deleteSessions(federatedIssuer: "https://idp.example", subject: "u1")
        }
        // "Everywhere else" from a hand-off session: its parent ends, and it with it.
        let kept = StoreSamples.session(60, owner: 1)
        let keeping = handOff(61, from: kept)
        for session in [kept, keeping] {
            try store.seedSession(session)
        }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                try transaction.deleteSessions(userID: StoreSamples.userID(1), except: keeping.id)
            },
            [bystander, kept, keeping].sorted(by: SessionRecord.precedes),
            "all but one, and the hand-off of an ended one"
        )
        try expectEqual(try store.sessions(userID: StoreSamples.userID(1), now: now), [], "none left")
    }

    public static func orphansAreNotFound(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let now = StoreSamples.now
        var orphan = handOff(2, from: StoreSamples.session(1, owner: 1))
        orphan.createdAt = now
        try store.seedSession(orphan)
        try expectEqual(try store.session(tokenHash: orphan.tokenHash, now: now), nil, "a parent never stored")
        try expectEqual(try store.session(id: orphan.id, now: now), nil, "a parent never stored, by ID")
        let expiring = StoreSamples.session(3, owner: 1, expiresAt: now.addingTimeInterval(10))
        let child = handOff(4, from: expiring)
        try store.seedSession(expiring)
        try store.seedSession(child)
        try expectEqual(try store.session(tokenHash: child.tokenHash, now: now), child, "a live parent")
        let later = now.addingTimeInterval(10)
        try expectEqual(try store.session(tokenHash: child.tokenHash, now: later), nil, "an expired parent")
        try expectEqual(try store.session(id: child.id, now: later), nil, "an expired parent, by ID")
    }

    public static func sessionsAreDeletedByFederatedIdentity(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let issuer = "https://idp.example"
        let mine = federatedSession(1, owner: 1, issuer: issuer, subject: "u1")
        let again = federatedSession(2, owner: 1, issuer: issuer, subject: "u1")
        let otherSubject = federatedSession(3, owner: 1, issuer: issuer, subject: "u2")
        let otherIssuer = federatedSession(4, owner: 1, issuer: "https://other.example", subject: "u1")
        let passkey = StoreSamples.session(5, owner: 1)
        let otherUser = federatedSession(6, owner: 2, issuer: issuer, subject: "u3")
        for session in [mine, again, otherSubject, otherIssuer, passkey, otherUser] {
            try store.seedSession(session)
        }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSessions(federatedIssuer: issuer, subject: "u1") },
            [mine, again].sorted(by: SessionRecord.precedes),
            "the identity's sessions"
        )
        let now = StoreSamples.now
        try expectEqual(
            try store.sessions(userID: StoreSamples.userID(1), now: now),
            [otherSubject, otherIssuer, passkey].sorted(by: SessionRecord.precedes),
            "another subject's, another issuer's and a passkey's stay"
        )
        try expectEqual(try store.session(tokenHash: otherUser.tokenHash, now: now), otherUser, "another user's")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSessions(federatedIssuer: issuer, subject: "u1") },
            [],
            "none left"
        )
    }
}
