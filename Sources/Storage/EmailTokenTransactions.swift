import Foundation

/// Tokens sent by email (`EmailTokenRecord`): pending address verifications and recovery links, in a transaction
/// (`StoreTransaction`).
public protocol EmailTokenTransactions {
    /// Stores `token`, replacing the account's token of the same purpose (the old link and code stop working).
    /// - Throws: `storage.notFound` when `token.userID` is not an existing user; `storage.duplicateKey` when another
    ///   token has the same hash.
    func replaceEmailToken(_ token: EmailTokenRecord) throws(StorageError)

    /// The account's token of `purpose`, expired or not, or nil.
    func emailToken(userID: [UInt8], purpose: EmailTokenRecord.Purpose) throws(StorageError) -> EmailTokenRecord?

    /// Deletes the token with this hash (spending it). Of any number of concurrent transactions spending the same
    /// token, across connections and processes sharing the database, exactly one commits having got it.
    /// - Returns: the deleted token, expired or not, or nil when there was none.
    func deleteEmailToken(hash: [UInt8]) throws(StorageError) -> EmailTokenRecord?

    /// Counts one code tried against the account's token of `purpose` (atomically: concurrent tries on any nodes each
    /// count) and returns the token as it is after the count.
    /// - Returns: nil when the account has no such token.
    func countEmailCodeAttempt(userID: [UInt8], purpose: EmailTokenRecord.Purpose) throws(StorageError) -> EmailTokenRecord?

    /// Deletes every token with `expiresAt <= now`.
    /// - Returns: how many were deleted.
    func purgeExpiredEmailTokens(now: Date) throws(StorageError) -> Int
}
