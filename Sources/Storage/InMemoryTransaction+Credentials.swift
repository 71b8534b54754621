import Foundation

extension InMemoryTransaction {
    func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord? {
        try run { $0.credentials[id] }
    }

    func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord] {
        try run { state in
            state.credentials.values
                .filter { $0.userID == userID }
                .sorted { left, right in
                    if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
                    return left.id.lexicographicallyPrecedes(right.id)
                }
        }
    }

    func insertCredential(_ credential: CredentialRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            guard state.credentials[credential.id] == nil else {
                throw StorageError(.credentialExists, "a credential with this ID already exists")
            }
            guard state.users[credential.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.credentials[credential.id] = credential
        }
    }

    func recordAuthentication(_ update: AuthenticationUpdate) throws(StorageError) {
        try run { state throws(StorageError) in
            guard var credential = state.credentials[update.credentialID] else {
                throw StorageError(.notFound, "the credential does not exist")
            }
            credential.signCount = max(credential.signCount, update.signCount)
            credential.backupEligible = update.backupEligible
            credential.backupState = update.backupState
            credential.lastUsedAt = update.usedAt
            credential.cloneWarning = credential.cloneWarning || update.cloneWarning
            credential.backupEligibilityChanged = credential.backupEligibilityChanged || update.backupEligibilityChanged
            state.credentials[update.credentialID] = credential
        }
    }

    func renameCredential(id: [UInt8], userID: [UInt8], name: String) throws(StorageError) -> Bool {
        try run { state in
            guard state.credentials[id]?.userID == userID else { return false }
            state.credentials[id]?.name = name
            return true
        }
    }

    func moveCredentials(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try run { state throws(StorageError) in
            let moving = state.credentials.values.filter { $0.userID == userID }
            guard !moving.isEmpty else { return 0 }
            guard state.users[targetUserID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            for credential in moving {
                state.credentials[credential.id]?.userID = targetUserID
            }
            return moving.count
        }
    }

    func deleteCredential(id: [UInt8], userID: [UInt8]) throws(StorageError) -> Bool {
        try run { state in
            guard state.credentials[id]?.userID == userID else { return false }
            state.credentials[id] = nil
            return true
        }
    }
}
