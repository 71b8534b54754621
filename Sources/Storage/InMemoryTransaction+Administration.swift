import Foundation

extension InMemoryTransaction {
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

    func insertEnrollmentToken(_ token: EnrollmentTokenRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            guard state.enrollmentTokens[token.tokenHash] == nil else {
                throw StorageError(.duplicateKey, "an enrollment link with this token hash already exists")
            }
            guard state.users[token.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.enrollmentTokens[token.tokenHash] = token
        }
    }

    func enrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord? {
        try run { $0.enrollmentTokens[hash] }
    }

    func deleteEnrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord? {
        try run { $0.enrollmentTokens.removeValue(forKey: hash) }
    }

    func purgeExpiredEnrollmentTokens(now: Date) throws(StorageError) -> Int {
        try run { state in
            let before = state.enrollmentTokens.count
            state.enrollmentTokens = state.enrollmentTokens.filter { now < $0.value.expiresAt }
            return before - state.enrollmentTokens.count
        }
    }

    func replaceRecoveryCodes(userID: [UInt8], hashes: [[UInt8]], createdAt: Date) throws(StorageError) {
        try run { state throws(StorageError) in
            guard state.users[userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.recoveryCodes[userID] = Set(hashes)
        }
    }

    func deleteRecoveryCode(userID: [UInt8], hash: [UInt8]) throws(StorageError) -> Bool {
        try run { state in state.recoveryCodes[userID]?.remove(hash) != nil }
    }

    func recoveryCodeCount(userID: [UInt8]) throws(StorageError) -> Int {
        try run { $0.recoveryCodes[userID]?.count ?? 0 }
    }
}
