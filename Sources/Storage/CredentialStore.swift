import Foundation

/// Passkeys of users.
public protocol CredentialStore: Sendable {
    /// Adds a credential to an existing user.
    ///
    /// - Throws: `storage.credentialExists` when a credential with this ID exists (for any user; reported
    ///   before a missing user); `storage.notFound` when `credential.userID` is not an existing user.
    func addCredential(_ credential: CredentialRecord) throws(StorageError)

    /// Returns the credential with this ID, whoever owns it, or nil when there is none.
    func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord?

    /// Returns the user's credentials ordered by `createdAt`, then by `id` (lexicographic bytes);
    /// empty when the user has none or does not exist.
    func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord]

    /// After a successful assertion: stores the new counter, BE/BS, lastUsedAt, and ORs in the warnings
    /// (never clears them).
    ///
    /// Sets `backupEligible`, `backupState` and `lastUsedAt = usedAt`, and `signCount` unless the stored counter is
    /// greater (a counter never goes back, even when a concurrent sign-in stored a higher one meanwhile);
    /// `cloneWarning` and `backupEligibilityChanged` become true when passed true and stay true once set. Other
    /// fields are unchanged.
    /// - Throws: `storage.notFound` when no credential has this ID.
    func recordAuthentication(
        credentialID: [UInt8],
        signCount: UInt32,
        backupEligible: Bool,
        backupState: Bool,
        usedAt: Date,
        cloneWarning: Bool,
        backupEligibilityChanged: Bool
    ) throws(StorageError)

    /// Sets the label of the user's credential.
    /// - Returns: false, changing nothing, when that user has no credential with this ID (including when
    ///   the credential belongs to another user).
    func renameCredential(id: [UInt8], userID: [UInt8], name: String) throws(StorageError) -> Bool

    /// Deletes the user's credential, atomically refusing to delete the user's only way to sign in.
    /// - Returns: `.deleted`; `.notFound` when that user has no credential with this ID (including when it
    ///   belongs to another user); `.lastCredential`, changing nothing, when it is the user's only credential
    ///   and the user has no Apple identity.
    func deleteCredential(id: [UInt8], userID: [UInt8]) throws(StorageError) -> CredentialDeletion
}
