import Foundation
import Storage

/// The clauses of the store contract for disabled users (`UserRecord.disabled`) and the app's metadata: no session
/// starts for a disabled user, by any path; a session of one never signs anyone in; its grants go in one call.
extension StoreContract {
    static let disabledUserChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "users keep disabled and metadata; updateUser writes them", run: disabledAndMetadataRoundTrip),
        StoreContractCheck(name: "a disabled user: no session by insertSession or a ceremony, none found", run: disabledUsersGetNoSession),
        StoreContractCheck(name: "deleteOAuthGrants(userID:): the user's grants, tokens and codes, no one else's", run: grantsOfAUserAreDeleted),
    ]

    public static func disabledAndMetadataRoundTrip(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var user = StoreSamples.user(1)
        user.disabled = true
        user.metadata = #"{"plan":"pro","seats":3}"#
        try store.transaction { transaction throws(StorageError) in try transaction.insertUser(user) }
        try expectEqual(try store.user(id: user.id), user, "user(id:)")
        user.disabled = false
        user.metadata = nil
        try expect(try store.transaction { transaction throws(StorageError) in try transaction.updateUser(user) }, "updated")
        try expectEqual(try store.user(name: user.name), user, "after updateUser")
        user.metadata = String(repeating: "x", count: UserRecord.maximumMetadataBytes + 1)
        try expectStorageError(.invalidRecord, "metadata over its bound") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(user) }
        }
    }

    public static func disabledUsersGetNoSession(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let live = StoreSamples.session(1, owner: 1)
        try store.transaction { transaction throws(StorageError) in try transaction.insertSession(live) }
        var user = StoreSamples.user(1)
        user.disabled = true
        _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(user) }
        // A session that outlived the change (one that raced it) signs nobody in while the user is disabled.
        try expectEqual(try store.session(tokenHash: live.tokenHash, now: now), nil, "session(tokenHash:) of a disabled user")
        try expectEqual(try store.session(id: live.id, now: now), nil, "session(id:) of a disabled user")
        try expectStorageError(.userDisabled, "insertSession") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.insertSession(StoreSamples.session(2, owner: 1)) }
        }
        let update = AuthenticationUpdate(
            credentialID: StoreSamples.credential(1, owner: 1).id,
            // The sample's counter is UInt32.max - 1: the one value above it.
            signCount: UInt32.max,
            backupEligible: false,
            backupState: false,
            usedAt: now,
            backupEligibilityChanged: false
        )
        try expectStorageError(.userDisabled, "completeAuthentication") { () throws(StorageError) in
            _ = try store.completeAuthentication(
                update,
                session: StoreSamples.session(3, owner: 1),
                events: [StoreSamples.event(1, owner: 1)],
                spending: nil,
                expecting: StoreSamples.expecting(1, owner: 1)
            )
        }
        try expectEqual(try store.credential(id: update.credentialID)?.signCount, StoreSamples.credential(1, owner: 1).signCount, "counter")
        var second = StoreSamples.credential(2, owner: 1)
        second.userID = user.id
        try expectStorageError(.userDisabled, "completeRegistration for the disabled user") { () throws(StorageError) in
            var session = StoreSamples.session(4, owner: 1)
            session.credentialID = second.id
            try store.completeRegistration(newUser: nil, credential: second, session: session, events: [StoreSamples.event(2, owner: 1)])
        }
        try expectEqual(try store.credential(id: second.id), nil, "the refused registration's passkey")
        let sessions = try store.transaction { transaction throws(StorageError) in try transaction.sessions(userID: user.id, now: now) }
        try expectEqual(sessions.count, 1, "sessions")
        // Enabled again, the user signs in as before.
        user.disabled = false
        _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(user) }
        try expectEqual(try store.session(tokenHash: live.tokenHash, now: now)?.id, live.id, "the session after enabling")
        _ = try store.completeAuthentication(
            update,
            session: StoreSamples.session(3, owner: 1),
            events: [],
            spending: nil,
            expecting: StoreSamples.expecting(1, owner: 1)
        )
        try expectEqual(try store.credential(id: update.credentialID)?.signCount, update.signCount, "counter after enabling")
    }

    public static func grantsOfAUserAreDeleted(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let now = StoreSamples.now
        let grants = [sampleGrant(1, owner: 1), sampleGrant(2, owner: 1), sampleGrant(3, owner: 2)]
        let tokens = grants.enumerated().map { index, grant in
            RefreshTokenRecord(tokenHash: [UInt8](repeating: 0xE0 | UInt8(index), count: 32), grantID: grant.id, createdAt: now)
        }
        let codes = [sampleCode(5, owner: 1), sampleCode(6, owner: 2)]
        try store.transaction { transaction throws(StorageError) in
            for grant in grants { try transaction.insertOAuthGrant(grant) }
            for token in tokens { try transaction.insertRefreshToken(token) }
            for code in codes { try transaction.insertAuthorizationCode(code) }
        }
        let deleted = try store.transaction { transaction throws(StorageError) in try transaction.deleteOAuthGrants(userID: StoreSamples.userID(1)) }
        try expectEqual(deleted, 2, "grants deleted")
        let found = try store.transaction { transaction throws(StorageError) in
            (
                try transaction.oauthGrant(id: grants[0].id), try transaction.refreshToken(hash: tokens[1].tokenHash),
                try transaction.oauthGrant(id: grants[2].id), try transaction.refreshToken(hash: tokens[2].tokenHash),
                try transaction.useAuthorizationCode(hash: codes[0].codeHash, now: now),
                try transaction.useAuthorizationCode(hash: codes[1].codeHash, now: now)
            )
        }
        try expectEqual(found.0, nil, "the user's first grant")
        try expectEqual(found.1, nil, "the user's second grant's token")
        try expectEqual(found.2, grants[2], "the other user's grant")
        try expectEqual(found.3, tokens[2], "the other user's token")
        try expectEqual(found.4, nil, "the user's code")
        try expect(found.5 != nil, "the other user's code")
    }
}
