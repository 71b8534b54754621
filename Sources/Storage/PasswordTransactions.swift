import Foundation

/// The reads and writes of imported password hashes, in a transaction (`StoreTransaction`): at most one per account,
/// deleted with it.
public protocol PasswordTransactions {
    /// The account's password hash, or nil.
    func passwordHash(userID: [UInt8]) throws(StorageError) -> PasswordHashRecord?

    /// Stores the account's password hash, replacing the one it had.
    /// - Throws: `storage.notFound` when there is no such user; `storage.invalidRecord` when it breaks a bound
    ///   (`PasswordHashRecord.validate`).
    func setPasswordHash(_ record: PasswordHashRecord) throws(StorageError)

    /// Deletes the account's password hash.
    /// - Returns: whether it had one.
    func deletePasswordHash(userID: [UInt8]) throws(StorageError) -> Bool

    /// Deletes the password hashes of at most `limit` accounts that have a passkey stored at or before `cutoff`
    /// (`passwords.retireAfterDays`).
    /// - Returns: how many were deleted.
    func retirePasswordHashes(passkeyStoredBefore cutoff: Date, limit: Int) throws(StorageError) -> Int
}
