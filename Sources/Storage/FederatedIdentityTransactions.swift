/// The identities of accounts at OpenID providers, in a transaction (`StoreTransaction`). Issuers and subjects are
/// compared exactly, byte for byte.
public protocol FederatedIdentityTransactions {
    /// The identity with this issuer and subject, or nil.
    func federatedIdentity(issuer: String, subject: String) throws(StorageError) -> FederatedIdentityRecord?

    /// The user's identities ordered by `createdAt`, then issuer, then subject.
    func federatedIdentities(userID: [UInt8]) throws(StorageError) -> [FederatedIdentityRecord]

    /// Links an identity to an existing account.
    /// - Throws: `storage.federatedIdentityTaken` when the issuer and subject are linked to any account (this one
    ///   included); `storage.notFound` when `identity.userID` is not an existing user; `storage.invalidRecord` when
    ///   the record breaks a bound (`FederatedIdentityRecord.validate`).
    func insertFederatedIdentity(_ identity: FederatedIdentityRecord) throws(StorageError)

    /// Writes the fields of `identity` (its account, provider name, email, sign-in time) over the identity with the same
    /// issuer and subject: how a sign-in or a merge changes one.
    /// - Returns: false, changing nothing, when there is no such identity.
    /// - Throws: `storage.notFound` when `identity.userID` is no user; `storage.invalidRecord` for a record out of bounds.
    func updateFederatedIdentity(_ identity: FederatedIdentityRecord) throws(StorageError) -> Bool

    /// Removes the identity, leaving the account.
    /// - Returns: whether an identity was removed.
    func deleteFederatedIdentity(issuer: String, subject: String) throws(StorageError) -> Bool

    /// Gives every identity of the user `userID` to the user `targetUserID` (an account merge).
    /// - Returns: how many identities moved.
    /// - Throws: `storage.notFound` when `targetUserID` is not an existing user (and the user has identities).
    func moveFederatedIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int
}
