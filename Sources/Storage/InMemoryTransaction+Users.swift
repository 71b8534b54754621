import Foundation

extension InMemoryTransaction {
    func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        try run { $0.users[id] }
    }

    func user(name: String) throws(StorageError) -> UserRecord? {
        try run { state in
            let key = UserRecord.nameKey(of: name)
            return state.users.values.first { $0.nameKey == key }
        }
    }

    func user(nameSkeleton skeleton: String) throws(StorageError) -> UserRecord? {
        try run { state in
            state.users.values.filter { $0.nameSkeleton == skeleton }.min { left, right in
                left.createdAt != right.createdAt ? left.createdAt < right.createdAt : left.id.lexicographicallyPrecedes(right.id)
            }
        }
    }

    func user(externalID: String) throws(StorageError) -> UserRecord? {
        try run { state in state.users.values.first { $0.externalID == externalID } }
    }

    func users(verifiedEmail email: String) throws(StorageError) -> [UserRecord] {
        try run { state in
            let wanted = Self.asciiLowercased(email)
            return state.users.values
                .filter { $0.emailVerified && $0.email.map(Self.asciiLowercased) == wanted }
                .sorted { left, right in
                    if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
                    return left.id.lexicographicallyPrecedes(right.id)
                }
        }
    }

    /// ASCII letters lowercased, every other character kept: SQLite's `lower()` and PostgreSQL's under the C collation.
    static func asciiLowercased(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
    }

    func insertUser(_ user: UserRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            try user.validate()
            guard state.users[user.id] == nil else { throw StorageError(.duplicateKey, "a user with this ID already exists") }
            guard !state.users.values.contains(where: { $0.nameKey == user.nameKey }) else {
                throw StorageError(.usernameTaken, "the username is already taken")
            }
            guard !state.users.values.contains(where: { $0.appAccountToken == user.appAccountToken }) else {
                throw StorageError(.duplicateKey, "a user with this app account token already exists")
            }
            try Self.checkExternalID(of: user, in: state)
            state.users[user.id] = user
        }
    }

    func updateUser(_ user: UserRecord) throws(StorageError) -> Bool {
        try run { state throws(StorageError) in
            try user.validate()
            guard let stored = state.users[user.id] else { return false }
            guard !state.users.values.contains(where: { $0.nameKey == user.nameKey && $0.id != user.id }) else {
                throw StorageError(.usernameTaken, "the username is already taken")
            }
            try Self.checkExternalID(of: user, in: state)
            var updated = user
            updated.appAccountToken = stored.appAccountToken
            updated.createdAt = stored.createdAt
            state.users[user.id] = updated
            return true
        }
    }

    /// `storage.externalIdTaken` when another user has `user.externalID`.
    private static func checkExternalID(of user: UserRecord, in state: InMemoryStore.State) throws(StorageError) {
        guard let externalID = user.externalID else { return }
        if state.users.values.contains(where: { $0.externalID == externalID && $0.id != user.id }) {
            throw StorageError(.externalIDTaken, "another account has this external id")
        }
    }

    func deleteUser(id: [UInt8]) throws(StorageError) -> Bool {
        try run { state in
            guard state.users.removeValue(forKey: id) != nil else { return false }
            state.credentials = state.credentials.filter { $0.value.userID != id }
            state.sessions = state.sessions.filter { $0.value.userID != id }
            state.challenges = state.challenges.filter { $0.value.userID != id }
            for identity in state.appleIdentities.values where identity.userID == id {
                state.appleRefreshTokens[identity.subject] = nil
            }
            state.appleIdentities = state.appleIdentities.filter { $0.value.userID != id }
            state.federatedIdentities = state.federatedIdentities.filter { $0.value.userID != id }
            state.linkDeclines = state.linkDeclines.filter { $0.first != id && $0.second != id }
            state.enrollmentTokens = state.enrollmentTokens.filter { $0.value.userID != id }
            state.recoveryCodes[id] = nil
            state.emailTokens = state.emailTokens.filter { $0.value.userID != id }
            state.passwordHashes[id] = nil
            state.authorizationCodes = state.authorizationCodes.filter { $0.value.userID != id }
            let grants = Set(state.oauthGrants.values.filter { $0.userID == id }.map(\.id))
            state.oauthGrants = state.oauthGrants.filter { !grants.contains($0.key) }
            state.refreshTokens = state.refreshTokens.filter { !grants.contains($0.value.grantID) }
            return true
        }
    }

    func users(namePrefix prefix: String, after: String?, limit: Int) throws(StorageError) -> [UserRecord] {
        try run { state in
            let (prefix, after) = (UserRecord.nameKey(of: prefix), after.map(UserRecord.nameKey(of:)))
            let matching = state.users.values.filter { (user: UserRecord) -> Bool in
                guard user.nameKey.utf8.starts(with: prefix.utf8) else { return false }
                guard let after else { return true }
                return after.utf8.lexicographicallyPrecedes(user.nameKey.utf8)
            }
            let ordered = matching.sorted { (left: UserRecord, right: UserRecord) in left.nameKey.utf8.lexicographicallyPrecedes(right.nameKey.utf8) }
            return Array(ordered.prefix(max(0, limit)))
        }
    }

    func users(email: String, limit: Int) throws(StorageError) -> [UserRecord] {
        try run { state in
            let wanted = Self.asciiLowercased(email)
            let matching = state.users.values.filter { $0.email.map(Self.asciiLowercased) == wanted }.sorted { left, right in
                if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
                return left.id.lexicographicallyPrecedes(right.id)
            }
            return Array(matching.prefix(max(0, limit)))
        }
    }
}
