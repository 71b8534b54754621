import Foundation

/// Sign in with Apple identities of accounts. Subjects are compared exactly.
public protocol AppleIdentityStore: Sendable {
    /// Creates an account whose first way to sign in is an Apple identity, atomically: afterwards either both
    /// exist or neither does.
    ///
    /// - Throws: `storage.appleIdentityTaken` when `identity.subject` is linked to any account;
    ///   `storage.usernameTaken` when another user has `user.name`; `storage.duplicateKey` when a user with
    ///   `user.id` exists; `storage.notFound` when `identity.userID` is not `user.id`.
    func createUser(_ user: UserRecord, appleIdentity identity: AppleIdentityRecord) throws(StorageError)

    /// Links an Apple identity to an existing account.
    /// - Throws: `storage.appleIdentityTaken` when the subject is linked to any account (this one included);
    ///   `storage.notFound` when `identity.userID` is not an existing user.
    func linkAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError)

    /// Returns the identity with this subject, or nil when there is none.
    func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord?

    /// Returns the user's identities ordered by `createdAt`, then by subject; empty when there are none.
    func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord]

    /// Removes the identity, leaving the account. Idempotent.
    /// - Returns: whether an identity was removed.
    func unlinkAppleIdentity(subject: String) throws(StorageError) -> Bool

    /// Sets `emailDisabled` of the identity; other fields are unchanged.
    /// - Returns: false, changing nothing, when there is no identity with this subject.
    func updateAppleEmailState(subject: String, emailDisabled: Bool) throws(StorageError) -> Bool

    /// Sets (or, with nil, clears) the encrypted refresh token and the client ID it was issued to.
    /// - Returns: false, changing nothing, when there is no identity with this subject.
    func setAppleRefreshToken(subject: String, encryptedToken: [UInt8]?, clientID: String?) throws(StorageError) -> Bool
}
