import Foundation
import Storage

extension PostgresStore: SharedLimitStore {
    /// How long a draw takes at most, from asking the pool for a connection to the server's answer: a limiter that
    /// cannot get one in time decides alone instead.
    public static let limitDrawDeadline: Duration = .seconds(1)

    /// One `INSERT … ON CONFLICT DO UPDATE` for the whole batch, its keys in order (the draws of one key added up
    /// first: a statement updates a row once): the row locks order concurrent draws on every node, taken in the order
    /// of the keys so that two batches never wait for each other's, and each `SET` expression reads the row as it was
    /// before this draw. Commits without waiting for the WAL flush (the setting sent with the statement, one round
    /// trip): a crash of the database can only give back tokens taken in its last moments. Over within
    /// `limitDrawDeadline`, whether every pooled connection is busy, a new one must be made, or the server is slow to
    /// answer.
    public func drawTokens(
        limit: String,
        _ draws: [LimitDraw],
        perSecond: Double,
        burst: Double,
        now: Date
    ) throws(StorageError) -> [(taken: Int, left: Double)] {
        guard !draws.isEmpty else { return [] }
        // Each key once, with what its draws want together (never more than the burst: a bucket holds no more).
        var wanted: [[UInt8]: Int] = [:]
        for draw in draws { wanted[draw.key, default: 0] += max(0, draw.count) }
        let keys = wanted.keys.sorted { $0.lexicographicallyPrecedes($1) }
        let whole = Int(max(0, burst).rounded(.down))
        let counts = keys.map { min(wanted[$0] ?? 0, whole) }
        // $1 the limit, $2 the keys, $3 what each wants, $4 per second, $5 burst, $6 now; a new bucket is the burst less
        // the draw; a stored one refilled to now (never back in time: a node whose clock is behind refills nothing),
        // then what this draw takes of it (`excluded.taken`: what the key wants).
        let refilled = "least($5, b.tokens + greatest(0, $6 - b.updated_at) * $4)"
        let taken = "greatest(0, least(excluded.taken, floor(\(refilled))))"
        func draw(_ connection: PostgresConnection) throws(PostgresError) -> [([UInt8], Int, Double)] {
            try connection.run(
                """
                INSERT INTO limit_buckets AS b (limit_name, key, tokens, taken, updated_at, full_at)
                SELECT $1, w.key, $5 - w.wanted, w.wanted, $6, $6 + w.wanted / $4
                FROM unnest($2::bytea[], $3::int8[]) WITH ORDINALITY AS w(key, wanted, position) ORDER BY w.position
                ON CONFLICT (limit_name, key) DO UPDATE SET
                    tokens = \(refilled) - \(taken), taken = \(taken),
                    updated_at = greatest(b.updated_at, $6),
                    full_at = greatest(b.updated_at, $6) + ($5 - \(refilled) + \(taken)) / $4
                RETURNING b.key, b.taken::bigint, b.tokens
                """,
                [
                    .text(limit), .array(keys, of: 17, PostgresValue.bytea), .array(counts, of: 20) { .bigint(Int64($0)) },
                    .double(perSecond), .double(burst), .date(now),
                ]
            ) { row throws(PostgresError) in (row.bytes(0), Int(try row.integer(1)), try row.double(2)) }
        }
        let deadline = ContinuousClock.now.advanced(by: Self.limitDrawDeadline)
        let rows = try withConnectionDeferringDurability(deadline: deadline, draw)
        var buckets: [[UInt8]: (taken: Int, left: Double)] = [:]
        for (key, taken, left) in rows { buckets[key] = (taken, left) }
        guard buckets.count == keys.count else { throw StorageError(.unavailable, "the limit buckets were not all written") }
        // What each key's statement took, handed to its draws in their order.
        return draws.map { draw in
            let bucket = buckets[draw.key] ?? (0, 0)
            let share = min(max(0, draw.count), bucket.taken)
            buckets[draw.key]?.taken -= share
            return (share, bucket.left)
        }
    }

    /// Skips the rows a draw holds (purged next time): the purge never waits for a draw, so the two never deadlock,
    /// whatever order each locks rows in.
    public func purgeFullLimitBuckets(now: Date) throws(StorageError) -> Int {
        try withConnectionDeferringDurability { connection throws(PostgresError) in
            try connection.run(
                """
                DELETE FROM limit_buckets WHERE (limit_name, key) IN
                    (SELECT limit_name, key FROM limit_buckets WHERE full_at <= $1 FOR UPDATE SKIP LOCKED)
                RETURNING 1
                """,
                [.date(now)]
            ) { _ throws(PostgresError) in 1 }.count
        }
    }
}
