import Foundation
import Storage

/// The account-lifecycle clauses of the store contract: the user's app account token, email and display-name default,
/// merges (moving credentials and identities), identity updates and re-keying, refresh tokens per client, link
/// declines and notification watermarks.
extension StoreContract {
    static let accountChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "users keep their app account token, email and display-name default", run: userFieldsRoundTrip),
        StoreContractCheck(name: "updateUser writes the mutable fields only", run: updateUserKeepsTheRest),
        StoreContractCheck(name: "users(verifiedEmail:) folds ASCII case and skips unverified", run: usersByVerifiedEmail),
        StoreContractCheck(name: "a merge moves credentials and Apple identities", run: mergeMovesRecords),
        StoreContractCheck(name: "updateAppleIdentity re-keys with its refresh tokens and sessions", run: identitiesAreReKeyed),
        StoreContractCheck(name: "transfer subjects are unique and found", run: transferSubjectsAreUnique),
        StoreContractCheck(name: "appleIdentities(after:limit:) pages byte-wise", run: identitiesArePaged),
        StoreContractCheck(name: "link declines are unordered pairs deleted with either account", run: linkDeclinesArePairs),
        StoreContractCheck(name: "notification watermarks rise, expire and are purged", run: watermarksRise),
    ]

    public static func userFieldsRoundTrip(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var user = StoreSamples.user(1)
        user.email = "Jane.Doe@Example.org"
        user.emailVerified = true
        user.displayNameIsDefault = true
        try store.seedUser(user, credential: StoreSamples.credential(1, owner: 1))
        try expectEqual(try store.user(id: user.id), user, "user(id:)")
        try expectEqual(try store.user(name: user.name), user, "user(name:)")
        try expectEqual(try store.user(id: user.id)?.appAccountToken, StoreSamples.appAccountToken(1), "the token itself")
        var twin = StoreSamples.user(2)
        twin.appAccountToken = user.appAccountToken
        try expectStorageError(.duplicateKey, "the same app account token") { () throws(StorageError) in
            try store.seedUser(twin, credential: StoreSamples.credential(2, owner: 2))
        }
        try expectEqual(try store.user(id: twin.id), nil, "refused user")
        var long = StoreSamples.user(3)
        long.email = String(repeating: "a", count: UserRecord.maximumEmailBytes - 11) + "@example.org"
        try expectStorageError(.invalidRecord, "an email over the bound") { () throws(StorageError) in
            try store.seedUser(long, credential: StoreSamples.credential(3, owner: 3))
        }
        long.email = String(long.email!.dropFirst())
        try store.seedUser(long, credential: StoreSamples.credential(3, owner: 3))
        try expectEqual(try store.user(id: long.id)?.email, long.email, "an email at the bound")
    }

    public static func updateUserKeepsTheRest(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let original = StoreSamples.user(1)
        try store.seedUser(original, credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2, name: "taken"), credential: StoreSamples.credential(2, owner: 2))
        var changed = original
        changed.name = "renamed"
        changed.displayName = "Jane Appleseed"
        changed.displayNameIsDefault = false
        changed.email = "jane@example.org"
        changed.emailVerified = true
        changed.appAccountToken = StoreSamples.appAccountToken(9)
        changed.createdAt = StoreSamples.now
        try expect(try store.transaction { transaction throws(StorageError) in try transaction.updateUser(changed) }, "updated")
        var expected = changed
        expected.appAccountToken = original.appAccountToken
        expected.createdAt = original.createdAt
        try expectEqual(try store.user(id: original.id), expected, "mutable fields written, token and createdAt kept")
        try expectEqual(try store.user(name: original.name), nil, "the old name is free")
        changed.name = "taken"
        try expectStorageError(.usernameTaken, "another user's name") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(changed) }
        }
        try expectEqual(try store.user(id: original.id), expected, "a refused update changes nothing")
        try expect(
            !(try store.transaction { transaction throws(StorageError) in try transaction.updateUser(StoreSamples.user(7)) }),
            "an unknown user"
        )
        try expectEqual(try store.user(id: StoreSamples.userID(7)), nil, "nothing made for an unknown user")
    }

    public static func usersByVerifiedEmail(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        func seed(_ number: UInt8, _ email: String?, verified: Bool, createdAt: TimeInterval) throws(StorageError) -> UserRecord {
            var user = StoreSamples.user(number)
            user.email = email
            user.emailVerified = verified
            user.createdAt = StoreSamples.now.addingTimeInterval(createdAt)
            try store.seedUser(user, credential: StoreSamples.credential(number, owner: number))
            return user
        }
        let later = try seed(1, "Jane@Example.ORG", verified: true, createdAt: -10)
        let earlier = try seed(2, "jane@example.org", verified: true, createdAt: -20)
        _ = try seed(3, "jane@example.org", verified: false, createdAt: -30)
        _ = try seed(4, nil, verified: true, createdAt: -40)
        let accented = try seed(5, "ÉLISE@example.org", verified: true, createdAt: -50)
        func users(_ email: String) throws(StorageError) -> [UserRecord] {
            try store.transaction { transaction throws(StorageError) in try transaction.users(verifiedEmail: email) }
        }
        try expectEqual(try users("JANE@example.org"), [earlier, later], "ASCII case folded, unverified skipped, by createdAt")
        try expectEqual(try users("ÉLISE@EXAMPLE.ORG"), [accented], "ASCII folded around a non-ASCII letter")
        try expectEqual(try users("élise@example.org"), [], "non-ASCII letters compare exactly")
        try expectEqual(try users("nobody@example.org"), [], "no match")
    }

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
