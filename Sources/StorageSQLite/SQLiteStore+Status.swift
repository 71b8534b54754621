import Foundation
import Storage

extension SQLiteStore {
    public func status(now: Date) throws(StorageError) -> StoreStatus {
        let counts = try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                """
                SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM challenges WHERE expires_at > ?1 AND ceremony <> 'spentAuthentication'),
                    (SELECT count(*) FROM sessions WHERE expires_at > ?1)
                """
            ).run([.date(now)]) { row throws(SQLiteError) in (Int(row.integer(0)), Int(row.integer(1)), Int(row.integer(2))) }.first
        }
        guard let counts else { throw StorageError(.unavailable, "the status query returned no row") }
        return StoreStatus(
            schemaVersion: counts.0,
            latestSchemaVersion: SQLiteMigrations.latestVersion,
            outstandingChallenges: counts.1,
            liveSessions: counts.2
        )
    }

    /// The schema version read and written back in one `BEGIN IMMEDIATE` transaction (so that a migration by another
    /// process cannot come between), committed durably: a frame appended to the WAL and synced.
    public func probeWrite() throws(StorageError) {
        try withConnection { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) in
                let version = try SQLiteMigrations.currentVersion(connection)
                try connection.execute("PRAGMA user_version = \(version)")
            }
        }
    }
}
