import Foundation

/// Token buckets that every node of a deployment draws from, so that a rate limit holds for the deployment and not
/// per node (PostgreSQL; a SQLite node is the whole deployment and keeps its limits in memory).
///
/// A bucket is named by its limit and a key (a hash: no address or username is stored), holds up to `burst` tokens
/// and refills at `perSecond`; a bucket not stored is full. A node takes a few tokens at a time and spends them
/// without asking again, so most requests cost no database write.
public protocol SharedLimitStore: Sendable {
    /// Takes up to `count` whole tokens from the bucket `key` of `limit`, refilled to `now` first, in one atomic
    /// statement for every node at once. Returns how many were taken (0 when the bucket holds less than one) and
    /// the tokens left after the take.
    func drawTokens(
        limit: String,
        key: [UInt8],
        count: Int,
        perSecond: Double,
        burst: Double,
        now: Date
    ) throws(StorageError) -> (taken: Int, left: Double)

    /// Deletes the buckets that have refilled completely by `now` (a full bucket limits nothing); returns how many.
    func purgeFullLimitBuckets(now: Date) throws(StorageError) -> Int
}
