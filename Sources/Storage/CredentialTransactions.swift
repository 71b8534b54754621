import Foundation

/// The reads and writes of passkeys (credentials), in a transaction (`StoreTransaction`).
public protocol CredentialTransactions {
    /// The credential with this ID, whoever owns it, or nil.
    func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord?

    /// The user's credentials ordered by `createdAt`, then by `id`.
    func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord]

    /// Stores a credential of an existing user.
    /// - Throws: `storage.credentialExists` when a credential with this ID exists (for any user; reported before a
    ///   missing user); `storage.notFound` when `credential.userID` is not an existing user.
    func insertCredential(_ credential: CredentialRecord) throws(StorageError)

    /// Records an assertion that is not a sign-in (such as a refused one that raised the clone warning): sets
    /// `backupEligible`, `backupState` and `lastUsedAt = update.usedAt`, and `signCount` unless the stored counter is
    /// greater (a counter never goes back); `cloneWarning` and `backupEligibilityChanged` become true when passed
    /// true and stay true once set. Other fields are unchanged.
    /// - Throws: `storage.notFound` when no credential has this ID.
    func recordAuthentication(_ update: AuthenticationUpdate) throws(StorageError)

    /// Sets the label of the user's credential.
    /// - Returns: false, changing nothing, when that user has no credential with this ID.
    func renameCredential(id: [UInt8], userID: [UInt8], name: String) throws(StorageError) -> Bool

    /// Gives every credential of the user `userID` to the user `targetUserID` (an account merge); their other fields,
    /// `userHandle` included, are unchanged.
    /// - Returns: how many credentials moved.
    /// - Throws: `storage.notFound` when `targetUserID` is not an existing user (and the user has credentials).
    func moveCredentials(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int

    /// Deletes the user's credential, whatever is left of the account (`deleteCredentialUnlessLast` keeps the last
    /// way to sign in).
    /// - Returns: false, changing nothing, when that user has no credential with this ID.
    func deleteCredential(id: [UInt8], userID: [UInt8]) throws(StorageError) -> Bool
}
