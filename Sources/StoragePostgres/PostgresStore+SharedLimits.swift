import Foundation
import Storage

extension PostgresStore: SharedLimitStore {
    /// How long a draw takes at most, from asking the pool for a connection to the server's answer: a limiter that
    /// cannot get one in time decides alone instead.
    public static let limitDrawDeadline: Duration = .seconds(1)

    /// One `INSERT … ON CONFLICT DO UPDATE`: the row lock orders concurrent draws on every node, and each `SET`
    /// expression reads the row as it was before this draw. Commits without waiting for the WAL flush (the setting
    /// sent with the statement, one round trip): a crash of the database can only give back tokens taken in its last
    /// moments. Over within `limitDrawDeadline`, whether every pooled connection is busy, a new one must be made, or
    /// the server is slow to answer.
    public func drawTokens(
        limit: String,
        key: [UInt8],
        count: Int,
        perSecond: Double,
        burst: Double,
        now: Date
    ) throws(StorageError) -> (taken: Int, left: Double) {
        // $3 wanted, $4 per second, $5 burst, $6 now; the bucket refilled to now (never back in time: a node whose
        // clock is behind refills nothing), then what this draw takes of it.
        let refilled = "least($5, limit_buckets.tokens + greatest(0, $6 - limit_buckets.updated_at) * $4)"
        let taken = "greatest(0, least($3, floor(\(refilled))))"
        func draw(_ connection: PostgresConnection) throws(PostgresError) -> [(Int, Double)] {
            try connection.run(
                """
                INSERT INTO limit_buckets (limit_name, key, tokens, taken, updated_at, full_at)
                VALUES ($1, $2, $5 - least($3, floor($5)), least($3, floor($5)), $6, $6 + least($3, floor($5)) / $4)
                ON CONFLICT (limit_name, key) DO UPDATE SET
                    tokens = \(refilled) - \(taken), taken = \(taken),
                    updated_at = greatest(limit_buckets.updated_at, $6),
                    full_at = greatest(limit_buckets.updated_at, $6) + ($5 - \(refilled) + \(taken)) / $4
                RETURNING taken::bigint, tokens
                """,
                [
                    .text(limit), .bytea(key), .bigint(Int64(max(0, count))), .double(perSecond), .double(burst),
                    .date(now),
                ]
            ) { row throws(PostgresError) in (Int(try row.integer(0)), try row.double(1)) }
        }
        let deadline = ContinuousClock.now.advanced(by: Self.limitDrawDeadline)
        let rows = try withConnectionDeferringDurability(deadline: deadline, draw)
        guard let row = rows.first else { throw StorageError(.unavailable, "the limit bucket was not written") }
        return (taken: row.0, left: row.1)
    }

    public func purgeFullLimitBuckets(now: Date) throws(StorageError) -> Int {
        try withConnectionDeferringDurability { connection throws(PostgresError) in
            try connection.run(
                "DELETE FROM limit_buckets WHERE full_at <= $1 RETURNING 1",
                [.date(now)]
            ) { _ throws(PostgresError) in 1 }.count
        }
    }
}
