import Storage

/// What both drivers' account-lifecycle migration must leave of the same pre-migration rows: users 1 (with the Apple
/// identity `001.a`: email, `transfer_sub`, a refresh token for `com.example.app` sealed as `[1, 2]`) and 2 (with the
/// passkey `[1, 2]`), each test writing them in its driver's old schema.
public enum AccountLifecycleMigration {
    /// Fails unless `store` holds what the migration must have made of those rows: a distinct version-4 app account
    /// token per user, user 1 with the identity's email, the identity unmarked and transferred when it was stored, its
    /// refresh token in the new table, the passkey with its owner's handle.
    public static func check(_ store: any PasskeyStore) throws {
        guard let alice = try store.user(id: StoreSamples.userID(1)), let bob = try store.user(id: StoreSamples.userID(2)) else {
            throw StoreContractFailure(message: "a migrated user is missing", file: #filePath, line: #line)
        }
        for user in [alice, bob] {
            let text = Array(user.appAccountToken.uuidString.lowercased())
            try expect(text[14] == "4" && "89ab".contains(text[19]), "\(String(text)) is a version-4 UUID")
        }
        try expect(alice.appAccountToken != bob.appAccountToken, "one token per account")
        try expectEqual([alice.email, bob.email], ["a@privaterelay.appleid.com", nil], "emails")
        try expectEqual([alice.emailVerified, bob.emailVerified], [true, false], "email verification")
        try expect(!alice.displayNameIsDefault && !bob.displayNameIsDefault, "names given before are the accounts' own")
        guard let identity = try store.appleIdentity(subject: "001.a") else {
            throw StoreContractFailure(message: "the migrated identity is missing", file: #filePath, line: #line)
        }
        try expect(!identity.consentRevoked && identity.lastSignInAt == nil, "a fresh mark and no sign-in recorded")
        try expectEqual(identity.transferSubject, "002.transfer", "transfer subject")
        try expectEqual(identity.transferredAt, identity.createdAt, "a stored transfer_sub came from a token of the recipient team")
        try expectEqual(
            try store.appleRefreshTokens(subject: "001.a"),
            [AppleRefreshTokenRecord(subject: "001.a", clientID: "com.example.app", encryptedToken: [1, 2])],
            "the refresh token moved"
        )
        try expectEqual(try store.credential(id: [1, 2])?.userHandle, StoreSamples.userID(2), "a passkey's handle is its owner's")
    }
}
