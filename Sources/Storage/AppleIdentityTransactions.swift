import Foundation

/// The Sign in with Apple identities of accounts, in a transaction (`StoreTransaction`): the identities, the refresh
/// tokens held for them, the revocations queued when they go, and the refused link suggestions.
public protocol AppleIdentityTransactions {
    // MARK: identities

    /// The identity with this subject, or nil. Subjects are compared exactly.
    func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord?

    /// The user's identities ordered by `createdAt`, then by subject.
    func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord]

    /// The identity whose `transferSubject` is this one, or nil.
    func appleIdentity(transferSubject: String) throws(StorageError) -> AppleIdentityRecord?

    /// At most `limit` identities whose subject sorts after `subject` (byte-wise; from the first with nil), ordered by
    /// subject: a cursor over every identity, for the transfer commands.
    func appleIdentities(after subject: String?, limit: Int) throws(StorageError) -> [AppleIdentityRecord]

    /// Links an Apple identity to an existing account.
    /// - Throws: `storage.appleIdentityTaken` when the subject is linked to any account (this one included);
    ///   `storage.duplicateKey` when `identity.transferSubject` is another identity's; `storage.notFound` when
    ///   `identity.userID` is not an existing user.
    func insertAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError)

    /// Removes the identity (with its refresh tokens), leaving the account.
    /// - Returns: whether an identity was removed.
    func deleteAppleIdentity(subject: String) throws(StorageError) -> Bool

    /// Writes every field of `identity` (its subject and account included) to the identity whose subject is `subject`:
    /// how a sign-in, a notification, a merge or a transfer changes one. Its refresh tokens follow a new subject.
    /// - Returns: false, changing nothing, when there is no identity with `subject`.
    /// - Throws: `storage.appleIdentityTaken` when `identity.subject` is another identity's; `storage.duplicateKey` when
    ///   `identity.transferSubject` is another identity's; `storage.notFound` when `identity.userID` is no user.
    func updateAppleIdentity(_ identity: AppleIdentityRecord, subject: String) throws(StorageError) -> Bool

    /// Gives every Apple identity of the user `userID` to the user `targetUserID` (an account merge).
    /// - Returns: how many identities moved.
    /// - Throws: `storage.notFound` when `targetUserID` is not an existing user (and the user has identities).
    func moveAppleIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int

    // MARK: refresh tokens

    /// Stores the encrypted refresh token of the identity for `clientID`, replacing the one held for that pair.
    /// - Returns: false, storing nothing, when there is no identity with this subject.
    func setAppleRefreshToken(subject: String, clientID: String, encryptedToken: [UInt8]) throws(StorageError) -> Bool

    /// The refresh tokens held for the identity, ordered by client ID.
    func appleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord]

    /// Deletes the refresh tokens held for the identity.
    /// - Returns: the deleted tokens, ordered by client ID.
    func deleteAppleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord]

    // MARK: revocations

    /// Queues a refresh token for revocation (`AppleRevocationQueue`).
    /// - Returns: the new entry's ID, increasing in insertion order.
    func enqueueRevocation(token encryptedToken: [UInt8], clientID: String, notBefore: Date) throws(StorageError) -> Int64

    // MARK: link suggestions

    /// Remembers that the person refused to link the two accounts (idempotent).
    /// - Throws: `storage.notFound` when either is not an existing user.
    func insertLinkDecline(_ decline: LinkDecline) throws(StorageError)

    /// Whether the pair was refused.
    func isLinkDeclined(_ decline: LinkDecline) throws(StorageError) -> Bool
}
