import Foundation
import Storage

/// The clauses of the store contract for identities at OpenID providers: keyed by issuer and subject, bounded,
/// listed, updated, moved and unlinked, gone with their account, and counted as a way into the account.
extension StoreContract {
    static let federatedIdentityChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "a federated identity is stored, found by issuer and subject, and listed", run: federatedIdentitiesAreStored),
        StoreContractCheck(name: "an issuer and subject belong to one account", run: federatedIdentitiesAreUnique),
        StoreContractCheck(name: "federated identities are bounded and need their user", run: federatedIdentitiesAreBounded),
        StoreContractCheck(name: "federated identities are updated, moved and unlinked", run: federatedIdentitiesChange),
        StoreContractCheck(name: "deleteUser removes federated identities", run: deleteUserRemovesFederatedIdentities),
        StoreContractCheck(name: "with a federated identity the last credential may go", run: federatedIdentityKeepsAccountReachable),
    ]

    /// A Google-shaped identity of the user `owner`, every optional field set.
    static func federatedIdentity(
        _ subject: String,
        owner: UInt8,
        issuer: String = "https://accounts.google.com",
        createdAt: Date = StoreSamples.now.addingTimeInterval(-900.5)
    ) -> FederatedIdentityRecord {
        FederatedIdentityRecord(
            issuer: issuer,
            subject: subject,
            userID: StoreSamples.userID(owner),
            provider: "google",
            email: "\(subject)@example.com",
            emailVerified: true,
            createdAt: createdAt,
            lastSignInAt: createdAt.addingTimeInterval(60.25)
        )
    }

    private static func link(_ store: any PasskeyStore, _ identity: FederatedIdentityRecord) throws(StorageError) {
        try store.transaction { transaction throws(StorageError) in try transaction.insertFederatedIdentity(identity) }
    }

    private static func identity(_ store: any PasskeyStore, _ issuer: String, _ subject: String) throws(StorageError) -> FederatedIdentityRecord? {
        try store.transaction { transaction throws(StorageError) in try transaction.federatedIdentity(issuer: issuer, subject: subject) }
    }

    private static func identities(_ store: any PasskeyStore, _ owner: UInt8) throws(StorageError) -> [FederatedIdentityRecord] {
        try store.transaction { transaction throws(StorageError) in try transaction.federatedIdentities(userID: StoreSamples.userID(owner)) }
    }

    public static func federatedIdentitiesAreStored(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let late = federatedIdentity("222", owner: 1)
        let early = federatedIdentity("333", owner: 1, createdAt: StoreSamples.now.addingTimeInterval(-7_200))
        let sameTimeOtherIssuer = federatedIdentity("111", owner: 1, issuer: "https://login.example.com")
        var bare = federatedIdentity("444", owner: 1, issuer: "https://id.example.com")
        bare.email = nil
        bare.emailVerified = false
        bare.lastSignInAt = nil
        for identity in [late, early, sameTimeOtherIssuer, bare] { try link(store, identity) }
        try expectEqual(try identity(store, late.issuer, "222"), late, "identity")
        try expectEqual(try identity(store, bare.issuer, "444"), bare, "identity without optional fields")
        try expectEqual(try identity(store, "accounts.google.com", "222"), nil, "issuers compare exactly")
        try expectEqual(try identity(store, late.issuer, "222 "), nil, "subjects compare exactly")
        try expectEqual(try identity(store, "https://login.example.com", "222"), nil, "a subject belongs to its issuer")
        try expectEqual(try identities(store, 1), [early, late, bare, sameTimeOtherIssuer], "ordered by creation, issuer (byte-wise), subject")
        try expectEqual(try identities(store, 2), [], "another user has none")
    }

    public static func federatedIdentitiesAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        try link(store, federatedIdentity("111", owner: 1))
        try expectStorageError(.federatedIdentityTaken, "link to another account") { () throws(StorageError) in
            try link(store, federatedIdentity("111", owner: 2))
        }
        try expectStorageError(.federatedIdentityTaken, "link twice to the same account") { () throws(StorageError) in
            try link(store, federatedIdentity("111", owner: 1))
        }
        try expectEqual(try identity(store, "https://accounts.google.com", "111")?.userID, StoreSamples.userID(1), "first owner keeps it")
        // The same subject at another issuer is another person.
        try link(store, federatedIdentity("111", owner: 2, issuer: "https://id.example.com"))
        try expectEqual(try identities(store, 2).map(\.issuer), ["https://id.example.com"], "same subject, other issuer")
    }

    public static func federatedIdentitiesAreBounded(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try expectStorageError(.notFound, "unknown user") { () throws(StorageError) in try link(store, federatedIdentity("111", owner: 1)) }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        var edits: [(String, (inout FederatedIdentityRecord) -> Void)] = [
            ("empty subject", { $0.subject = "" }),
            ("long subject", { $0.subject = String(repeating: "s", count: FederatedIdentityRecord.maximumSubjectBytes + 1) }),
            ("empty issuer", { $0.issuer = "" }),
            ("long issuer", { $0.issuer = "https://" + String(repeating: "i", count: FederatedIdentityRecord.maximumIssuerBytes) }),
            ("empty provider", { $0.provider = "" }),
            ("long provider", { $0.provider = String(repeating: "p", count: FederatedIdentityRecord.maximumProviderBytes + 1) }),
            ("long email", { $0.email = String(repeating: "e", count: FederatedIdentityRecord.maximumEmailBytes + 1) }),
        ]
        edits.append(("longest fields", { _ in }))
        for (what, edit) in edits.dropLast() {
            var record = federatedIdentity("111", owner: 1)
            edit(&record)
            try expectStorageError(.invalidRecord, what) { () throws(StorageError) in try link(store, record) }
        }
        try expectEqual(try identities(store, 1), [], "nothing stored")
        var longest = federatedIdentity(String(repeating: "s", count: FederatedIdentityRecord.maximumSubjectBytes), owner: 1)
        longest.issuer = String(repeating: "i", count: FederatedIdentityRecord.maximumIssuerBytes)
        longest.email = String(repeating: "e", count: FederatedIdentityRecord.maximumEmailBytes)
        try link(store, longest)
        try expectEqual(try identity(store, longest.issuer, longest.subject), longest, "fields at their bounds")
    }

    public static func federatedIdentitiesChange(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let original = federatedIdentity("111", owner: 1)
        try link(store, original)
        try link(store, federatedIdentity("222", owner: 1, issuer: "https://id.example.com"))
        var signedIn = original
        signedIn.email = "new@example.com"
        signedIn.emailVerified = false
        signedIn.lastSignInAt = StoreSamples.now
        let updated = try store.transaction { transaction throws(StorageError) in try transaction.updateFederatedIdentity(signedIn) }
        try expectEqual(updated, true, "update of a linked identity")
        try expectEqual(try identity(store, original.issuer, original.subject), signedIn, "updated identity")
        let missing = try store.transaction { transaction throws(StorageError) in
            try transaction.updateFederatedIdentity(federatedIdentity("999", owner: 1))
        }
        try expectEqual(missing, false, "update of a missing identity")
        try expectEqual(try identity(store, original.issuer, "999"), nil, "an update creates nothing")
        try expectStorageError(.notFound, "update to a missing user") { () throws(StorageError) in
            var orphan = signedIn
            orphan.userID = StoreSamples.userID(9)
            _ = try store.transaction { transaction throws(StorageError) in try transaction.updateFederatedIdentity(orphan) }
        }
        try expectStorageError(.notFound, "move to a missing user") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in
                try transaction.moveFederatedIdentities(from: StoreSamples.userID(1), to: StoreSamples.userID(9))
            }
        }
        let moved = try store.transaction { transaction throws(StorageError) in
            try transaction.moveFederatedIdentities(from: StoreSamples.userID(1), to: StoreSamples.userID(2))
        }
        try expectEqual(moved, 2, "identities moved")
        try expectEqual(try identities(store, 1), [], "none left on the merged account")
        try expectEqual(try identities(store, 2).map(\.subject), ["111", "222"], "both on the kept account")
        let deleted = try store.transaction { transaction throws(StorageError) in
            try transaction.deleteFederatedIdentity(issuer: original.issuer, subject: original.subject)
        }
        try expectEqual(deleted, true, "unlink")
        let again = try store.transaction { transaction throws(StorageError) in
            try transaction.deleteFederatedIdentity(issuer: original.issuer, subject: original.subject)
        }
        try expectEqual(again, false, "unlink twice")
        try expectEqual(try identities(store, 2).map(\.subject), ["222"], "the other identity stays")
        try expectEqual(try store.user(id: StoreSamples.userID(2)) != nil, true, "the account stays")
    }

    public static func deleteUserRemovesFederatedIdentities(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        try link(store, federatedIdentity("111", owner: 1))
        try link(store, federatedIdentity("222", owner: 2))
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(1)) }
        try expectEqual(try identity(store, "https://accounts.google.com", "111"), nil, "the deleted account's identity")
        try expectEqual(try identities(store, 2).count, 1, "another account's identity stays")
        // The freed identity can make a new account.
        try store.seedUser(StoreSamples.user(3), credential: StoreSamples.credential(3, owner: 3))
        try link(store, federatedIdentity("111", owner: 3))
    }

    public static func federatedIdentityKeepsAccountReachable(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let only = StoreSamples.credential(1, owner: 1)
        try store.seedUser(StoreSamples.user(1), credential: only)
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        try link(store, federatedIdentity("222", owner: 2))
        let refused = try store.transaction { transaction throws(StorageError) in
            try transaction.deleteCredentialUnlessLast(id: only.id, userID: only.userID)
        }
        try expectEqual(refused, .lastCredential, "another user's identity does not count")
        try link(store, federatedIdentity("111", owner: 1))
        let deleted = try store.transaction { transaction throws(StorageError) in
            try transaction.deleteCredentialUnlessLast(id: only.id, userID: only.userID)
        }
        try expectEqual(deleted, .deleted, "signing in with the provider still opens the account")
    }
}
