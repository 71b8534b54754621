import Foundation

/// The keys the server signs its tokens with, in a transaction (`StoreTransaction`).
public protocol SigningKeyTransactions {
    /// Every signing key, ordered by `activatesAt`, then by `id`.
    func signingKeys() throws(StorageError) -> [SigningKeyRecord]

    /// Stores a new signing key.
    /// - Throws: `storage.duplicateKey` when a key with this ID is stored; `storage.invalidRecord` when it breaks a
    ///   bound (`SigningKeyRecord.validate`).
    func insertSigningKey(_ key: SigningKeyRecord) throws(StorageError)

    /// Sets when the key stops signing and when it stops being published; other fields are unchanged.
    /// - Returns: false, changing nothing, when there is no key with this ID.
    func retireSigningKey(id: String, retiresAt: Date, expiresAt: Date) throws(StorageError) -> Bool

    /// Deletes the key (once it is no longer published).
    /// - Returns: whether there was such a key.
    func deleteSigningKey(id: String) throws(StorageError) -> Bool
}
