import Foundation
import Storage

/// The schema history. Each step brings the schema from `version - 1` to `version`; the one row of
/// `passkeyd_schema` records the last step applied. Never edit a released step: append a new one.
///
/// The schema follows SQLite's (StorageSQLite/SQLiteMigrations.swift) column for column, so `passkeyd migrate`
/// copies rows as they are. Times are double precision seconds since 2001-01-01T00:00:00Z (Foundation's reference
/// date), which round-trips `Date` exactly. Constraint names are spelled out: `PostgresError` maps them to the
/// storage contract's codes.
enum PostgresMigrations {
    struct Step: Sendable {
        let version: Int
        let sql: String
        /// What the step does after its SQL that SQL cannot (Unicode normalisation), in the migration's transaction,
        /// given the migration's time.
        var rewrite: (@Sendable (PostgresRecords, Date) throws(StorageError) -> Void)? = nil
        /// True when a node of the release before this step cannot keep serving on the schema the step leaves (a
        /// column or table dropped or renamed, a NOT NULL column without a default, a narrower constraint): during a
        /// rolling upgrade the older nodes still run on it. Such a step is applied only when the operator says every
        /// older node is stopped (`passkeyd serve --allow-incompatible-migration`). Every step so far keeps the
        /// previous release working (`make test-upgrade` runs 0.1.0's nodes on the migrated schema).
        var breaksPreviousRelease = false
    }

    /// The schema version this build writes.
    static var latestVersion: Int { steps.last?.version ?? 0 }

    /// How long a migration's statements may take before the client gives up on the server.
    static let replyDeadline = Duration.seconds(600)

    /// What a migration's (or an import's) transaction sets first: its lock waits (another node's migration, a table
    /// lock) may take as long as its statements, not a request's `lock_timeout` (`PostgresConnectionPool`).
    static let longLockWait = "SET LOCAL lock_timeout = '600s'"

    /// An arbitrary constant naming the advisory lock that serialises migrations across nodes starting at once.
    private static let lockKey = 0x7061_7373_6b65_79

    /// Applies the missing steps in one transaction under an advisory lock, so that nodes starting together apply
    /// each step once and none sees a half-migrated schema; `now` is the time of the events a step writes. A missing
    /// step that breaks the previous release is applied only `allowingIncompatible`; otherwise none is.
    /// - Throws: `storage.unavailable` when the server can't be reached; `storage.migrationFailed` when the database
    ///   is newer than this build or a step fails; `storage.migrationRefused` for a step that breaks the previous
    ///   release, not allowed.
    static func migrate(
        _ pool: PostgresConnectionPool,
        now: Date,
        steps: [Step] = steps,
        allowingIncompatible: Bool = false
    ) throws(StorageError) {
        let latestVersion = steps.last?.version ?? 0
        // Connecting first keeps an unreachable server `storage.unavailable`, apart from a failed migration.
        try pool.withConnection { _ throws(PostgresError) in }
        let found: Int
        var refused: Step?
        do {
            // A migration may rewrite a large table: it gets the server's statement timeout, not a request's deadline.
            found = try pool.withConnection(deadline: .now + Self.replyDeadline) { connection throws(PostgresError) -> Int in
                let replyDeadline = connection.replyDeadline
                connection.replyDeadline = Self.replyDeadline
                defer { connection.replyDeadline = replyDeadline }
                return try connection.transaction { () throws(PostgresError) -> Int in
                    try connection.execute("\(longLockWait); SELECT pg_advisory_xact_lock(\(lockKey))")
                    try connection.execute("CREATE TABLE IF NOT EXISTS passkeyd_schema (version integer NOT NULL)")
                    let versions = try connection.run("SELECT version::bigint FROM passkeyd_schema", []) { row throws(PostgresError) in
                        try row.integer(0)
                    }
                    let current = Int(versions.first ?? 0)
                    guard current <= latestVersion else { return current }
                    if !allowingIncompatible, let breaking = steps.first(where: { current < $0.version && $0.breaksPreviousRelease }) {
                        refused = breaking
                        return current
                    }
                    for step in steps where current < step.version {
                        try connection.execute(step.sql)
                        if let rewrite = step.rewrite {
                            let records = PostgresRecords(connection: connection)
                            defer { records.isOpen = false }
                            do throws(StorageError) {
                                try rewrite(records, now)
                            } catch {
                                throw PostgresError(.failed, error.reason)
                            }
                        }
                    }
                    if versions.isEmpty {
                        try connection.execute("INSERT INTO passkeyd_schema (version) VALUES (\(latestVersion))")
                    } else if current < latestVersion {
                        try connection.execute("UPDATE passkeyd_schema SET version = \(latestVersion)")
                    }
                    return current
                }
            }
        } catch {
            guard error.code == .unavailable else { throw error }
            throw StorageError(.migrationFailed, "migrating to schema version \(latestVersion) failed: \(error.reason)")
        }
        guard found <= latestVersion else {
            throw StorageError(
                .migrationFailed,
                "the database schema version \(found) is newer than version \(latestVersion), the latest this build knows"
            )
        }
        if let refused {
            throw StorageError(
                .migrationRefused,
                "schema version \(refused.version) (of \(found) → \(latestVersion)) breaks nodes of the previous release that still run "
                    + "on this database: stop every older node, then start one node with --allow-incompatible-migration"
            )
        }
    }
}
