import Foundation
import Storage

/// A `PasskeyStore` on PostgreSQL, shared by every passkeyd node behind a load balancer.
///
/// Each single call borrows one pooled connection and runs as one statement, so it is atomic for every node at once:
/// a challenge is taken by one `DELETE … RETURNING`, which of any number of concurrent callers on any nodes only one
/// completes with the row. The ceremonies are one statement each (data-modifying CTEs, events included): one round
/// trip. `transaction` runs its body in a `SERIALIZABLE` transaction and runs it again, from the start, on a
/// serialization failure or a deadlock (up to `maximumTransactionAttempts` times; a retry holds an advisory lock
/// that first attempts share, so it runs alone across nodes), so bodies written once for every driver behave as if
/// run one after the other, on any number of nodes.
///
/// Durability: commits wait for the WAL flush (`synchronous_commit = on`), except `insertChallenge`,
/// `takeChallenge` and `recordSessionUse`, which commit with `synchronous_commit = off` as their protocols allow.
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

    let pool: PostgresConnectionPool

    /// Connects with `connectionString` (libpq key=value pairs or a postgresql:// URI), and migrates the database
    /// to the latest schema.
    /// - Parameters:
    ///   - poolSize: the most connections this store opens at once.
    ///   - waitTimeout: how long a call waits for a free connection before `storage.unavailable`.
    ///   - replyDeadline: how long a statement waits for the server's answer before `storage.unavailable`
    ///     (`timedOut`) and the connection is closed: a server that accepts and never answers fails fast.
    /// - Throws: `storage.unavailable` when the database can't be reached; `storage.migrationFailed` when its
    ///   schema is newer than this build or a migration step fails.
    public init(
        connectionString: String,
        poolSize: Int,
        waitTimeout: Duration = .seconds(10),
        replyDeadline: Duration = .seconds(10)
    ) throws(StorageError) {
        pool = PostgresConnectionPool(
            connectionString: connectionString,
            size: max(1, poolSize),
            waitTimeout: waitTimeout,
            replyDeadline: replyDeadline
        )
        // The one clock of the store: the time of the events a migration writes.
        try PostgresMigrations.migrate(pool, now: Date())
    }

    /// How many calls have waited for a pooled connection (all were lent), and how many gave up after the wait timeout.
    public var poolWaits: (waits: Int, timeouts: Int) { pool.waitCounts }

    /// Closes the pool's connections. Later calls throw `storage.unavailable`. Idempotent.
    public func close() {
        pool.close()
    }

    public func transaction<Result: Sendable>(_ body: (any StoreTransaction) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try pool.withConnection { connection throws(PostgresError) -> Swift.Result<Result, StorageError> in
            // The retry lock, an advisory lock taken before each attempt's snapshot: shared by first attempts, exclusive
            // for the retries of a body that failed to serialise. A retry thus runs alone, across nodes, and cannot
            // lose again to transactions that started after it failed (without it, a body that keeps colliding with a
            // busy row may lose every time); first attempts do not wait for each other.
            var holdsRetryLock = false
            defer {
                if holdsRetryLock { try? connection.execute("SELECT pg_advisory_unlock_all()") }
            }
            holdsRetryLock = true
            try connection.execute("SELECT pg_advisory_lock_shared(\(Self.retryLockKey))")
            var attempt = 1
            func retry() throws(PostgresError) -> Bool {
                guard attempt < Self.maximumTransactionAttempts else { return false }
                if attempt == 1 {
                    try connection.execute("SELECT pg_advisory_unlock_all(); SELECT pg_advisory_lock(\(Self.retryLockKey))")
                }
                attempt += 1
                return true
            }
            while true {
                try connection.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
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
                        guard try retry() else { return .failure(Self.notSerialised(attempt)) }
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
                    // One round trip for both; a failed COMMIT skips the unlock, done then by `defer` or the retry.
                    try connection.execute("COMMIT; SELECT pg_advisory_unlock_all()")
                    holdsRetryLock = false
                } catch {
                    guard error.code == .serializationFailure else { throw error }
                    guard try retry() else { return .failure(Self.notSerialised(attempt)) }
                    continue
                }
                return outcome
            }
        }.get()
    }

    /// An arbitrary constant naming the advisory lock that retried transactions take (see `transaction`).
    private static let retryLockKey = 0x7061_7373_7265_7472

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
        try pool.withConnection(durableCommits: true, body)
    }

    /// Runs `body` like `withConnection`, but with commits that do not wait for the WAL flush; only for the
    /// challenge writes and a session's last use (see the type's comment).
    @discardableResult
    func withConnectionDeferringDurability<Result>(
        _ body: (PostgresConnection) throws(PostgresError) -> Result
    ) throws(StorageError) -> Result {
        try pool.withConnection(durableCommits: false, body)
    }
}
