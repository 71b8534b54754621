import Foundation

extension InMemoryTransaction {
    func passwordHash(userID: [UInt8]) throws(StorageError) -> PasswordHashRecord? {
        try run { $0.passwordHashes[userID] }
    }

    func setPasswordHash(_ record: PasswordHashRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            try record.validate()
            guard state.users[record.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.passwordHashes[record.userID] = record
        }
    }

    func deletePasswordHash(userID: [UInt8]) throws(StorageError) -> Bool {
        try run { state in state.passwordHashes.removeValue(forKey: userID) != nil }
    }

    func retirePasswordHashes(passkeyStoredBefore cutoff: Date, limit: Int) throws(StorageError) -> Int {
        try run { state in
            let upgraded = Set(state.credentials.values.filter { $0.createdAt <= cutoff }.map(\.userID))
            let retired = state.passwordHashes.keys.filter(upgraded.contains).prefix(max(0, limit))
            for userID in retired { state.passwordHashes[userID] = nil }
            return retired.count
        }
    }
}
