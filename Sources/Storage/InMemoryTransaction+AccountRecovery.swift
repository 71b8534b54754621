import Foundation

extension InMemoryTransaction {
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
