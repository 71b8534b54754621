import Foundation
import Storage

/// A `PasskeyStore` on PostgreSQL, shared by every passkeyd node behind a load balancer.
///
/// Each single call borrows one pooled connection and runs as one statement, so it is atomic for every node at once:
/// a challenge is taken by one `DELETE … RETURNING`, which of any number of concurrent callers on any nodes only one
/// completes with the row. The ceremonies are one statement each (data-modifying CTEs, events included): one round
/// trip. `transaction` runs its body in a `SERIALIZABLE` transaction and runs it again, from the start, on a
/// serialization failure or a deadlock (up to `maximumTransactionAttempts` times, after a growing pause), so bodies
/// written once for every driver behave as if run one after the other, on any number of nodes. No lock outlives a
/// transaction and no statement is prepared by name with `transactionPooling`, so the store works through a
/// transaction-mode pooler (PgBouncer) too.
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
    public static let maximumTransactionAttempts = 20

    let pool: PostgresConnectionPool
    /// A random number in a range, for the pauses between a transaction's attempts.
    private let jitter: @Sendable (ClosedRange<UInt32>) -> UInt32

    /// Connects with `connectionString` (libpq key=value pairs or a postgresql:// URI), and migrates the database
    /// to the latest schema.
    /// - Parameters:
    ///   - poolSize: the most connections this store opens at once.
    ///   - waitTimeout: how long a call waits for a free connection before `storage.unavailable`.
    /// - Throws: `storage.unavailable` when the database can't be reached; `storage.migrationFailed` when its
    ///   schema is newer than this build or a migration step fails.
    ///   - transactionPooling: the connection string reaches PostgreSQL through a transaction-mode pooler (PgBouncer's
    ///     `pool_mode = transaction`): statements are sent unnamed and every commit is durable.
    ///   - jitter: a random number in a range, for the pauses between a transaction's attempts.
    public init(
        connectionString: String,
        poolSize: Int,
        waitTimeout: Duration = .seconds(10),
        transactionPooling: Bool = false,
        jitter: @escaping @Sendable (ClosedRange<UInt32>) -> UInt32 = { UInt32.random(in: $0) }
    ) throws(StorageError) {
        self.jitter = jitter
        pool = PostgresConnectionPool(
            connectionString: connectionString,
            size: max(1, poolSize),
            waitTimeout: waitTimeout,
            transactionPooling: transactionPooling
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
            var attempt = 1
            // Another attempt after a random pause of up to 1, 2, 4 … 64, then 100 ms ("full jitter", about 1.4 s at
            // most in all), so that bodies colliding on a busy row spread out instead of meeting again at once. No
            // lock is held across attempts: a retry never makes unrelated transactions wait.
            func retry() -> Bool {
                guard attempt < Self.maximumTransactionAttempts else { return false }
                usleep(useconds_t(1000 * jitter(0...min(UInt32(1) << min(attempt - 1, 6), 100))))
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
