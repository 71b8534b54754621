import Foundation
import Storage

/// The schema history. Each step brings the schema from `version - 1` to `version`; `PRAGMA user_version`
/// records the last step applied. Never edit a released step: append a new one.
///
/// Times are REAL seconds since 2001-01-01T00:00:00Z (Foundation's reference date), which round-trips
/// `Date` exactly. Booleans are INTEGER 0/1. Transports are a JSON array of strings.
enum SQLiteMigrations {
    struct Step: Sendable {
        let version: Int
        let sql: String
        /// What the step does after its SQL that SQL cannot (Unicode normalisation), in the migration's transaction,
        /// given the migration's time.
        var rewrite: (@Sendable (SQLiteRecords, Date) throws(StorageError) -> Void)? = nil
    }

    /// The schema version this build writes.
    static var latestVersion: Int { steps.last?.version ?? 0 }

    /// Applies the missing steps in one IMMEDIATE transaction, so concurrent openers apply them once; `now` is the time
    /// of the events a step writes.
    /// - Throws: `storage.migrationFailed` when the database is newer than this build or a step fails.
    static func migrate(_ connection: SQLiteConnection, now: Date) throws(StorageError) {
        let found: Int
        do throws(SQLiteError) {
            found = try connection.immediateTransaction { () throws(SQLiteError) -> Int in
                let current = try currentVersion(connection)
                for step in steps where current < step.version && current <= latestVersion {
                    try connection.execute(step.sql)
                    if let rewrite = step.rewrite {
                        let records = SQLiteRecords(connection: connection)
                        defer { records.isOpen = false }
                        do throws(StorageError) {
                            try rewrite(records, now)
                        } catch {
                            throw SQLiteError(.failed, error.reason)
                        }
                    }
                    try connection.execute("PRAGMA user_version = \(step.version)")
                }
                return current
            }
        } catch {
            throw StorageError(.migrationFailed, "migrating to schema version \(latestVersion) failed: \(error.storageError.reason)")
        }
        guard found <= latestVersion else {
            throw StorageError(
                .migrationFailed,
                "the database schema version \(found) is newer than version \(latestVersion), "
                    + "the latest this build knows"
            )
        }
    }

    /// Reads `PRAGMA user_version`.
    static func currentVersion(_ connection: SQLiteConnection) throws(SQLiteError) -> Int {
        let versions = try connection.statement("PRAGMA user_version").run([]) { row throws(SQLiteError) in
            Int(row.integer(0))
        }
        return versions.first ?? 0
    }
}
