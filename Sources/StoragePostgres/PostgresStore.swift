import Foundation
import Storage

/// A `PasskeyStore` on PostgreSQL, shared by every passkeyd node behind a load balancer.
///
/// Each call borrows one pooled connection and runs as one statement or one transaction, so each call is atomic
/// for every node at once: a challenge is taken by one `DELETE … RETURNING`, which of any number of concurrent
/// callers on any nodes only one completes with the row. Read-then-write calls lock the rows they depend on.
///
/// Durability: commits wait for the WAL flush (`synchronous_commit = on`), except `insertChallenge` and
/// `takeChallenge`, which commit with `synchronous_commit = off` as `ChallengeStore` allows. PostgreSQL's WAL is
/// one sequence for all sessions, and a durable commit flushes it up to its own record: the durable commit that
/// ends a successful ceremony (`CeremonyStore`), made after its `takeChallenge` returned, therefore makes that
/// take durable too, whichever node made it. A crash of the database server can only lose an issued challenge or
/// bring back one whose ceremony never completed.
///
/// Failures: a lost server gives `storage.unavailable` (the server answers 503); the pool reconnects on the next
/// call, so service resumes as soon as the database is back. A call that throws may or may not have been
/// committed when the connection died during its COMMIT; it never reports success without a commit.
public final class PostgresStore: PasskeyStore {
    let pool: PostgresConnectionPool

    /// Connects with `connectionString` (libpq key=value pairs or a postgresql:// URI), and migrates the database
    /// to the latest schema.
    /// - Parameters:
    ///   - poolSize: the most connections this store opens at once.
    ///   - waitTimeout: how long a call waits for a free connection before `storage.unavailable`.
    /// - Throws: `storage.unavailable` when the database can't be reached; `storage.migrationFailed` when its
    ///   schema is newer than this build or a migration step fails.
    public init(connectionString: String, poolSize: Int, waitTimeout: Duration = .seconds(10)) throws(StorageError) {
        pool = PostgresConnectionPool(connectionString: connectionString, size: max(1, poolSize), waitTimeout: waitTimeout)
        try PostgresMigrations.migrate(pool)
    }

    /// Closes the pool's connections. Later calls throw `storage.unavailable`. Idempotent.
    public func close() {
        pool.close()
    }

    /// Runs `body` on a pooled connection with durable commits.
    @discardableResult
    func withConnection<Result>(_ body: (PostgresConnection) throws(PostgresError) -> Result) throws(StorageError) -> Result {
        try pool.withConnection(durableCommits: true, body)
    }

    /// Runs `body` like `withConnection`, but with commits that do not wait for the WAL flush; only for the
    /// challenge writes (see the type's comment).
    @discardableResult
    func withConnectionDeferringDurability<Result>(
        _ body: (PostgresConnection) throws(PostgresError) -> Result
    ) throws(StorageError) -> Result {
        try pool.withConnection(durableCommits: false, body)
    }
}
