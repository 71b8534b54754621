import Foundation

/// The ways back into an account that lost every passkey, in a transaction (`StoreTransaction`): enrollment links
/// and recovery codes.
public protocol AccountRecoveryTransactions {
    // MARK: enrollment links

    /// Stores a new enrollment link.
    /// - Throws: `storage.notFound` when `token.userID` is not an existing user; `storage.duplicateKey` when a link
    ///   with the same token hash is stored.
    func insertEnrollmentToken(_ token: EnrollmentTokenRecord) throws(StorageError)

    /// The enrollment link with this token hash, expired or not, or nil.
    func enrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord?

    /// Deletes the enrollment link with this token hash (using it). Of any number of concurrent transactions taking the
    /// same link, across connections and processes sharing the database, exactly one commits having got it.
    /// - Returns: the deleted link, expired or not, or nil when there was none.
    func deleteEnrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord?

    /// Deletes every enrollment link with `expiresAt <= now`.
    /// - Returns: how many were deleted.
    func purgeExpiredEnrollmentTokens(now: Date) throws(StorageError) -> Int

    // MARK: recovery codes

    /// Replaces the user's recovery codes with `hashes` (the SHA-256 of each code): the old set is gone.
    /// - Throws: `storage.notFound` when `userID` is not an existing user.
    func replaceRecoveryCodes(userID: [UInt8], hashes: [[UInt8]], createdAt: Date) throws(StorageError)

    /// Deletes the user's recovery code with this hash (using it). Of any number of concurrent transactions using the
    /// same code, across connections and processes sharing the database, exactly one commits having got true.
    /// - Returns: whether the user had that code.
    func deleteRecoveryCode(userID: [UInt8], hash: [UInt8]) throws(StorageError) -> Bool

    /// How many unused recovery codes the user has.
    func recoveryCodeCount(userID: [UInt8]) throws(StorageError) -> Int
}
