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
}
