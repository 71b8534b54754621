import Foundation

extension InMemoryTransaction {
    func federatedIdentity(issuer: String, subject: String) throws(StorageError) -> FederatedIdentityRecord? {
        try run { $0.federatedIdentities[FederatedIdentityKey(issuer: issuer, subject: subject)] }
    }

    func federatedIdentities(userID: [UInt8]) throws(StorageError) -> [FederatedIdentityRecord] {
        try run { state in
            state.federatedIdentities.values.filter { $0.userID == userID }.sorted { left, right in
                if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
                if left.issuer != right.issuer { return Array(left.issuer.utf8).lexicographicallyPrecedes(Array(right.issuer.utf8)) }
                return Array(left.subject.utf8).lexicographicallyPrecedes(Array(right.subject.utf8))
            }
        }
    }

    func insertFederatedIdentity(_ identity: FederatedIdentityRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            try identity.validate()
            let key = FederatedIdentityKey(issuer: identity.issuer, subject: identity.subject)
            guard state.federatedIdentities[key] == nil else {
                throw StorageError(.federatedIdentityTaken, "the identity is already linked to an account")
            }
            guard state.users[identity.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.federatedIdentities[key] = identity
        }
    }

    func updateFederatedIdentity(_ identity: FederatedIdentityRecord) throws(StorageError) -> Bool {
        try run { state throws(StorageError) in
            try identity.validate()
            let key = FederatedIdentityKey(issuer: identity.issuer, subject: identity.subject)
            guard state.federatedIdentities[key] != nil else { return false }
            guard state.users[identity.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.federatedIdentities[key] = identity
            return true
        }
    }

    func deleteFederatedIdentity(issuer: String, subject: String) throws(StorageError) -> Bool {
        try run { $0.federatedIdentities.removeValue(forKey: FederatedIdentityKey(issuer: issuer, subject: subject)) != nil }
    }

    func moveFederatedIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try run { state throws(StorageError) in
            let moving = state.federatedIdentities.filter { $0.value.userID == userID }
            guard !moving.isEmpty else { return 0 }
            guard state.users[targetUserID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            for key in moving.keys {
                state.federatedIdentities[key]?.userID = targetUserID
            }
            return moving.count
        }
    }
}

/// The key of a federated identity in the in-memory store.
struct FederatedIdentityKey: Hashable {
    let issuer: String
    let subject: String
}
