import Foundation

/// Token buckets that every node of a deployment draws from, so that a rate limit holds for the deployment and not
/// per node (PostgreSQL; a SQLite node is the whole deployment and keeps its limits in memory).
///
/// A bucket is named by its limit and a key (a hash: no address or username is stored), holds up to `burst` tokens
/// and refills at `perSecond`; a bucket not stored is full. A node takes a few tokens at a time and spends them
/// without asking again, and the draws of requests that ask at once go in one statement, so that requests outnumber
/// the database's writes.
public protocol SharedLimitStore: Sendable {
    /// Takes tokens for each of `draws` from the buckets of `limit`, each refilled to `now` first, in one atomic
    /// statement for every node at once: each draw up to its `count` whole tokens, the draws of one key served in their
    /// order. Returns, for each draw in order, how many it took (0 when its bucket held less than one) and the tokens
    /// its bucket holds after the whole batch.
    func drawTokens(
        limit: String,
        _ draws: [LimitDraw],
        perSecond: Double,
        burst: Double,
        now: Date
    ) throws(StorageError) -> [(taken: Int, left: Double)]

    /// Deletes the buckets that have refilled completely by `now` (a full bucket limits nothing); returns how many.
    func purgeFullLimitBuckets(now: Date) throws(StorageError) -> Int
}

extension SharedLimitStore {
    /// One draw of up to `count` tokens from the bucket `key` of `limit`: how many were taken and the tokens left.
    public func drawTokens(
        limit: String,
        key: [UInt8],
        count: Int,
        perSecond: Double,
        burst: Double,
        now: Date
    ) throws(StorageError) -> (taken: Int, left: Double) {
        let drawn = try drawTokens(limit: limit, [LimitDraw(key: key, count: count)], perSecond: perSecond, burst: burst, now: now)
        guard let only = drawn.first else { throw StorageError(.unavailable, "the limit bucket was not written") }
        return only
    }
}
