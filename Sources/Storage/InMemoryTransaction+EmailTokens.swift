import Foundation

extension InMemoryTransaction {
    func replaceEmailToken(_ token: EmailTokenRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            guard state.users[token.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            if let other = state.emailTokens[token.tokenHash], other.userID != token.userID || other.purpose != token.purpose {
                throw StorageError(.duplicateKey, "an email token with this hash already exists")
            }
            state.emailTokens = state.emailTokens.filter { $0.value.userID != token.userID || $0.value.purpose != token.purpose }
            state.emailTokens[token.tokenHash] = token
        }
    }

    func emailToken(userID: [UInt8], purpose: EmailTokenRecord.Purpose) throws(StorageError) -> EmailTokenRecord? {
        try run { state in state.emailTokens.values.first { $0.userID == userID && $0.purpose == purpose } }
    }

    func deleteEmailToken(hash: [UInt8]) throws(StorageError) -> EmailTokenRecord? {
        try run { $0.emailTokens.removeValue(forKey: hash) }
    }

    func countEmailCodeAttempt(userID: [UInt8], purpose: EmailTokenRecord.Purpose) throws(StorageError) -> EmailTokenRecord? {
        try run { state in
            guard var token = state.emailTokens.values.first(where: { $0.userID == userID && $0.purpose == purpose }) else { return nil }
            token.attempts += 1
            state.emailTokens[token.tokenHash] = token
            return token
        }
    }

    func purgeExpiredEmailTokens(now: Date) throws(StorageError) -> Int {
        try run { state in
            let before = state.emailTokens.count
            state.emailTokens = state.emailTokens.filter { now < $0.value.expiresAt }
            return before - state.emailTokens.count
        }
    }
}
