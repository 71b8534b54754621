import Foundation
import Storage

/// What tests seed and inspect stores with: each a one-operation transaction, so they run on every driver exactly as
/// the contract's transactions do. Not part of the store's API: the server writes in its own transactions.
extension TransactionalStore {
    /// An account with its first passkey.
    public func seedUser(_ user: UserRecord, credential: CredentialRecord) throws(StorageError) {
        try transaction { transaction throws(StorageError) in
            try transaction.insertUser(user)
            try transaction.insertCredential(credential)
        }
    }

    /// An account whose first way in is an Apple identity.
    public func seedUser(_ user: UserRecord, appleIdentity: AppleIdentityRecord) throws(StorageError) {
        try transaction { transaction throws(StorageError) in
            try transaction.insertUser(user)
            try transaction.insertAppleIdentity(appleIdentity)
        }
    }

    /// Another passkey of an existing account.
    public func seedCredential(_ credential: CredentialRecord) throws(StorageError) {
        try transaction { transaction throws(StorageError) in try transaction.insertCredential(credential) }
    }

    /// A session of an existing account.
    public func seedSession(_ session: SessionRecord) throws(StorageError) {
        try transaction { transaction throws(StorageError) in try transaction.insertSession(session) }
    }

    /// Another Apple identity of an existing account.
    public func seedAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError) {
        try transaction { transaction throws(StorageError) in try transaction.insertAppleIdentity(identity) }
    }

    /// The Apple identity with this subject, read in a transaction.
    public func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord? {
        try transaction { transaction throws(StorageError) in try transaction.appleIdentity(subject: subject) }
    }

    /// The user's Apple identities, read in a transaction.
    public func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord] {
        try transaction { transaction throws(StorageError) in try transaction.appleIdentities(userID: userID) }
    }

    /// The identity's Apple refresh tokens, read in a transaction.
    public func appleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord] {
        try transaction { transaction throws(StorageError) in try transaction.appleRefreshTokens(subject: subject) }
    }

    /// The user's unexpired sessions, read in a transaction.
    public func sessions(userID: [UInt8], now: Date) throws(StorageError) -> [SessionRecord] {
        try transaction { transaction throws(StorageError) in try transaction.sessions(userID: userID, now: now) }
    }
}

extension EventStore {
    /// Every event of the outbox, in id order.
    public func allEvents() throws(StorageError) -> [EventRecord] {
        try events(after: 0, limit: 10_000)
    }
}
