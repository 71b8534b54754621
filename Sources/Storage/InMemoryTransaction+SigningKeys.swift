import Foundation

extension InMemoryTransaction {
    func signingKeys() throws(StorageError) -> [SigningKeyRecord] {
        try run { state in state.signingKeys.values.sorted(by: SigningKeyRecord.precedes) }
    }

    func insertSigningKey(_ key: SigningKeyRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            try key.validate()
            guard state.signingKeys[key.id] == nil else { throw StorageError(.duplicateKey, "a signing key with this ID already exists") }
            state.signingKeys[key.id] = key
        }
    }

    func retireSigningKey(id: String, retiresAt: Date, expiresAt: Date) throws(StorageError) -> Bool {
        try run { state in
            guard state.signingKeys[id] != nil else { return false }
            state.signingKeys[id]?.retiresAt = retiresAt
            state.signingKeys[id]?.expiresAt = expiresAt
            return true
        }
    }

    func deleteSigningKey(id: String) throws(StorageError) -> Bool {
        try run { $0.signingKeys.removeValue(forKey: id) != nil }
    }
}
