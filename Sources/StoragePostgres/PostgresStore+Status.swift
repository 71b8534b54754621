import Foundation
import Storage

extension PostgresStore {
    public func status(now: Date) throws(StorageError) -> StoreStatus {
        let counts = try withConnection { connection throws(PostgresError) in
            try connection.run(
                """
                SELECT (SELECT max(version) FROM passkeyd_schema), (SELECT count(*) FROM challenges WHERE expires_at > $1 AND ceremony <> 'spentAuthentication'),
                    (SELECT count(*) FROM sessions WHERE expires_at > $1)
                """,
                [.date(now)]
            ) { row throws(PostgresError) in (Int(try row.integer(0)), Int(try row.integer(1)), Int(try row.integer(2))) }.first
        }
        guard let counts else { throw StorageError(.unavailable, "the status query returned no row") }
        return StoreStatus(
            schemaVersion: counts.0,
            latestSchemaVersion: PostgresMigrations.latestVersion,
            outstandingChallenges: counts.1,
            liveSessions: counts.2
        )
    }

    /// The schema row updated to itself, committed (a WAL record flushed, as every commit).
    public func probeWrite() throws(StorageError) {
        try withConnection { connection throws(PostgresError) in
            _ = try connection.run("UPDATE passkeyd_schema SET version = version", [])
        }
    }
}
