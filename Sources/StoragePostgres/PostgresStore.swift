import Foundation
import Storage

/// A `PasskeyStore` on PostgreSQL, shared by every passkeyd node behind a load balancer.
///
/// Each single call borrows one pooled connection and runs as one statement, so it is atomic for every node at once:
/// a challenge is taken by one `DELETE … RETURNING`, which of any number of concurrent callers on any nodes only one
/// completes with the row. The ceremonies are one statement each (data-modifying CTEs, events included): one round
/// trip. `transaction` runs its body in a `SERIALIZABLE` transaction and runs it again, from the start, on a
/// serialization failure or a deadlock (up to `maximumTransactionAttempts` times, after a growing pause, each retry
/// alone under a transaction's table lock that first attempts share), so bodies written once for every driver behave
/// as if run one after the other, on any number of nodes. No lock outlives a transaction and no statement is prepared
/// by name with `transactionPooling`, so the store works through a transaction-mode pooler (PgBouncer) too.
///
/// Durability: commits wait for the WAL flush (`synchronous_commit = on`), except `insertChallenge`,
/// `takeChallenge` and `recordSessionUse`, which commit with `synchronous_commit = off` as their protocols allow
/// (and the outbox workers' and shared limits' bookkeeping, see their files), set for their own transaction only.
/// PostgreSQL's WAL is one sequence for all sessions, and a durable commit flushes it up to its own record: the
/// durable commit that ends a successful ceremony (`CeremonyStore`), made after its `takeChallenge` returned,
/// therefore makes that take durable too, whichever node made it. A crash of the database server can only lose an
/// issued challenge or bring back one whose ceremony never completed.
///
/// Failures: a lost server gives `storage.unavailable` (the server answers 503); the pool reconnects on the next
/// call, so service resumes as soon as the database is back. A call that throws may or may not have been
/// committed when the connection died during its COMMIT; it never reports success without a commit.
///
/// Each record-level operation's SQL is in `PostgresRecords` (one file per record type); single calls and
/// transactions run those, and the ceremonies compose their statement from the same column lists.
public final class PostgresStore: PasskeyStore {
    /// The most times `transaction` runs a body that keeps failing to serialise before `storage.unavailable`.
    public static let maximumTransactionAttempts = 10
    /// The default bound of a store call, 5 s (the `callTimeout` of `init`): long enough for a busy database's slowest
    /// ordinary call (a checkpoint's fsync, a row lock held by another node's transaction) by a wide margin, short
    /// enough that a client told `503` with `Retry-After` retries soon rather than gives up.
    public static let defaultCallTimeout = Duration.seconds(5)

    let pool: PostgresConnectionPool
    /// The connection that listens for changes of the signing keys; nil behind a transaction-mode pooler without a
    /// listening connection string.
    let listener: PostgresListener?
    /// A random number in a range, for the pauses between a transaction's attempts.
    private let jitter: @Sendable (ClosedRange<UInt32>) -> UInt32

    /// Connects with `connectionString` (libpq key=value pairs or a postgresql:// URI), and migrates the database
    /// to the latest schema.
    /// - Parameters:
    ///   - poolSize: the most connections this store opens at once.
    ///   - waitTimeout: how long a call waits for a free connection before `storage.unavailable`.
    ///   - replyDeadline: how long a statement waits for the server's answer before `storage.unavailable`
    ///     (`timedOut`) and the connection is closed: a server that accepts and never answers fails fast.
    ///   - callTimeout: how long a call takes at most in all (pool wait, connect, statements, lock waits) before
    ///     `storage.unavailable` (`timedOut`): 5 s by default, the bound of every store call on a request's path.
    ///     Migrations and imports have their own, longer.
    /// - Throws: `storage.unavailable` when the database can't be reached; `storage.migrationFailed` when its
    ///   schema is newer than this build or a migration step fails.
    ///   - transactionPooling: the connection string reaches PostgreSQL through a transaction-mode pooler (PgBouncer's
    ///     `pool_mode = transaction`): statements are sent unnamed and no session setting is made.
    ///   - jitter: a random number in a range, for the pauses between a transaction's attempts.
    ///   - notices: PostgreSQL's notices and the `FATAL` that closes a connection, for the log (libpq would print
    ///     them on standard error); dropped by default.
    ///   - allowingIncompatibleMigration: the operator stopped every node of the previous release, so a schema step
    ///     that breaks them may run (`storage.migrationRefused` otherwise).
    ///   - listenConnectionString: where the listener for signing-key changes connects (`SigningKeyChangeFeed`): a
    ///     direct or session-mode connection. Nil: `connectionString`, unless `transactionPooling` (no listener then).
    public init(
        connectionString: String,
        poolSize: Int,
        waitTimeout: Duration = .seconds(10),
        replyDeadline: Duration = .seconds(10),
        callTimeout: Duration = PostgresStore.defaultCallTimeout,
        transactionPooling: Bool = false,
        jitter: @escaping @Sendable (ClosedRange<UInt32>) -> UInt32 = { UInt32.random(in: $0) },
        notices: @escaping @Sendable (PostgresNotice) -> Void = { _ in },
        allowingIncompatibleMigration: Bool = false,
        listenConnectionString: String? = nil
    ) throws(StorageError) {
        self.jitter = jitter
        let notices = PostgresNoticeReceiver(notices)
        listener = (listenConnectionString ?? (transactionPooling ? nil : connectionString)).map {
            PostgresListener(connectionString: $0, notices: notices)
        }
        pool = PostgresConnectionPool(
            connectionString: connectionString,
            size: max(1, poolSize),
            waitTimeout: waitTimeout,
            replyDeadline: replyDeadline,
            callTimeout: callTimeout,
            transactionPooling: transactionPooling,
            notices: notices
        )
        // The one clock of the store: the time of the events a migration writes.
        try PostgresMigrations.migrate(pool, now: Date(), allowingIncompatible: allowingIncompatibleMigration)
    }

    /// How many calls have waited for a pooled connection (all were lent), and how many gave up after the wait timeout.
    public var poolWaits: (waits: Int, timeouts: Int) { pool.waitCounts }

    /// Closes the pool's connections. Later calls throw `storage.unavailable`. Idempotent.
    public func close() {
        listener?.stop()
        pool.close()
    }

    public func transaction<Result: Sendable>(_ body: (any StoreTransaction) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try transaction(deadline: nil, body)
    }

    /// `transaction`, over by `deadline` (nil: the pool's `callTimeout` from now), its attempts and pauses included.
    func transaction<Result: Sendable>(
        deadline: ContinuousClock.Instant?,
        _ body: (any StoreTransaction) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        try pool.withConnection(deadline: deadline) { connection throws(PostgresError) -> Swift.Result<Result, StorageError> in
            var attempt = 1
            // Another attempt after a random pause of up to 1, 2, 4 … 64 ms, so that bodies colliding on a busy row
            // spread out; from the second attempt on, the attempt runs alone (see `begin`).
            func retry() -> Bool {
                guard attempt < Self.maximumTransactionAttempts else { return false }
                usleep(useconds_t(1000 * jitter(0...(UInt32(1) << min(attempt - 1, 6)))))
                attempt += 1
                return true
            }
            while true {
                try begin(connection, alone: attempt > 1)
                let records = PostgresRecords(connection: connection)
                let outcome: Swift.Result<Result, StorageError>
                do throws(StorageError) {
                    outcome = .success(try body(records))
                } catch {
                    outcome = .failure(error)
                }
                records.isOpen = false
                if let failed = records.statementFailure {
                    connection.rollBack()
                    if failed.code == .connectionFailed { throw failed }
                    if failed.code == .serializationFailure {
                        guard retry() else { return .failure(Self.notSerialised(attempt)) }
                        continue
                    }
                }
                if case .failure = outcome {
                    connection.rollBack()
                    return outcome
                }
                if let failure = records.failure {
                    // The body caught an operation's error and carried on: the transaction is doomed all the same.
                    connection.rollBack()
                    return .failure(failure)
                }
                do throws(PostgresError) {
                    try connection.execute("COMMIT")
                } catch {
                    guard error.code == .serializationFailure else { throw error }
                    guard retry() else { return .failure(Self.notSerialised(attempt)) }
                    continue
                }
                return outcome
            }
        }.get()
    }

    /// The lock that lets a retried body run alone: first attempts share it, retries take it alone, so a body that
    /// failed to serialise cannot lose again to transactions that started after it failed (without it, 8 threads
    /// making 50 increments of one row each saw some lose 20 times running). A table lock, which PostgreSQL releases
    /// with the transaction (nothing outlives it, so it works through a transaction-mode pooler) and which, taken by
    /// `LOCK TABLE` before the first query, is held before the transaction's snapshot is (an advisory lock is taken by
    /// a query, after the snapshot). The table is `passkeyd_schema`, which requests only read: `ROW SHARE` and
    /// `EXCLUSIVE` leave reads alone. A wait for it is bounded by `fairnessLockTimeout`; past it the attempt runs
    /// without it, so a stalled retry delays others by at most that.
    private static let fairnessLockTimeout = "2s"

    /// `BEGIN` of a serializable attempt with the fairness lock (shared, or `alone`), in one round trip; without the
    /// lock when it is not had in time. Then the server's own bound of each lock wait and statement, below the call's
    /// (`PostgresConnectionPool.serverTimeoutMilliseconds`), by `SET LOCAL`, which holds through a transaction pooler.
    private func begin(_ connection: PostgresConnection, alone: Bool) throws(PostgresError) {
        let timeout = pool.serverTimeoutMilliseconds
        let bounds = "SET LOCAL lock_timeout = \(timeout); SET LOCAL statement_timeout = \(timeout)"
        do {
            try connection.execute(
                """
                BEGIN ISOLATION LEVEL SERIALIZABLE; SET LOCAL lock_timeout = '\(Self.fairnessLockTimeout)';
                LOCK TABLE passkeyd_schema IN \(alone ? "EXCLUSIVE" : "ROW SHARE") MODE; \(bounds)
                """
            )
        } catch {
            // The fairness lock not had in time (the server's `lock_timeout`); not the call's own deadline, which leaves
            // the connection abandoned.
            guard error.code == .timedOut, !connection.isBroken else { throw error }
            connection.rollBack()
            try connection.execute("BEGIN ISOLATION LEVEL SERIALIZABLE; \(bounds)")
        }
    }

    private static func notSerialised(_ attempts: Int) -> StorageError {
        StorageError(.unavailable, "the transaction could not be serialised in \(attempts) attempts")
    }

    /// Runs `body` with the records of a pooled connection with durable commits, in autocommit mode: for single calls.
    /// A connection failure drops the pool's idle connections, as in `withConnection`.
    @discardableResult
    func withRecords<Result>(_ body: (PostgresRecords) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try pool.withConnection { connection throws(PostgresError) -> Swift.Result<Result, StorageError> in
            let records = PostgresRecords(connection: connection)
            defer { records.isOpen = false }
            do throws(StorageError) {
                return .success(try body(records))
            } catch {
                if let failed = records.statementFailure, failed.code == .connectionFailed { throw failed }
                return .failure(error)
            }
        }.get()
    }

    /// Runs `body` on a pooled connection with durable commits.
    @discardableResult
    func withConnection<Result>(_ body: (PostgresConnection) throws(PostgresError) -> Result) throws(StorageError) -> Result {
        try pool.withConnection(body)
    }

    /// Runs `body` like `withConnection`, but with commits that do not wait for the WAL flush (`SET LOCAL` of each of
    /// its transactions, in the same round trip as the statement); only for the challenge writes, a session's last
    /// use (see the type's comment) and the outbox workers' and shared limits' bookkeeping.
    @discardableResult
    func withConnectionDeferringDurability<Result>(
        deadline: ContinuousClock.Instant? = nil,
        _ body: (PostgresConnection) throws(PostgresError) -> Result
    ) throws(StorageError) -> Result {
        try pool.withConnection(deferringDurability: true, deadline: deadline, body)
    }
}
