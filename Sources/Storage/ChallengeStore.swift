import Foundation

/// Single-use ceremony challenges. A challenge is valid while `now < expiresAt`.
///
/// Durability: `insertChallenge` and `takeChallenge` may return before their write is durable (the SQLite store
/// commits them without waiting for `fsync`). A crash may then lose an issued challenge, which only makes the
/// client start again, or bring back a taken one, unless a durable write of the same store followed: a ceremony
/// that succeeds ends with one (`CeremonyStore`) before its client is answered. Single use while the process
/// runs does not depend on durability: a taken challenge is gone for every caller at once.
public protocol ChallengeStore: Sendable {
    /// Stores a new challenge.
    ///
    /// When `userID` is set it must name an existing user (the challenge is deleted with that user); for the
    /// registration of a new account, keep the pending user handle in `context` and leave `userID` nil.
    /// - Throws: `storage.notFound` when `userID` is set and no such user exists;
    ///   `storage.duplicateKey` when a challenge with the same bytes is already stored.
    func insertChallenge(_ challenge: ChallengeRecord) throws(StorageError)

    /// Single use: atomically removes the challenge and returns it (one DELETE … RETURNING in SQL).
    /// Of any number of concurrent callers with the same challenge exactly one gets .valid.
    /// An expired row is removed and reported .expired; a missing one .unknown.
    ///
    /// The challenge is expired when `now >= expiresAt`. The exactly-one guarantee holds across
    /// connections and processes sharing the same database.
    func takeChallenge(_ challenge: [UInt8], now: Date) throws(StorageError) -> ChallengeLookup

    /// Deletes every challenge with `expiresAt <= now`.
    /// - Returns: the number of challenges deleted.
    func purgeExpiredChallenges(now: Date) throws(StorageError) -> Int
}
