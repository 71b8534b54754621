import Foundation

/// Passkeys of users, read on the hot paths. They are written by the ceremonies (`CeremonyStore`) and, for everything
/// else, in a transaction (`StoreTransaction.insertCredential`, `recordAuthentication`, `renameCredential`,
/// `deleteCredential`, `deleteCredentialUnlessLast`).
public protocol CredentialStore: Sendable {
    /// Returns the credential with this ID, whoever owns it, or nil when there is none.
    func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord?

    /// Returns the user's credentials ordered by `createdAt`, then by `id` (lexicographic bytes);
    /// empty when the user has none or does not exist.
    func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord]
}
