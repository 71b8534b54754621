import Foundation
import Storage

extension PostgresStore: RestorableStore {
    public func endGrantsAfterRestore(now: Date, event: (SessionRecord) -> NewEvent) throws(StorageError) -> RestoreRevocations {
        try transaction { transaction throws(StorageError) -> RestoreRevocations in
            guard let records = transaction as? PostgresRecords else { throw StorageError(.unavailable, "not a PostgreSQL transaction") }
            let live = try records.run { connection throws(PostgresError) in
                try connection.run(
                    "SELECT \(PostgresRecords.sessionColumns) FROM sessions WHERE expires_at > $1 ORDER BY user_id, id",
                    [.date(now)],
                    row: PostgresRecords.sessionRecord
                )
            }
            for session in live { try records.appendEvent(event(session)) }
            return try records.run { connection throws(PostgresError) in
                _ = try connection.run("DELETE FROM sessions", [])
                var revocations = RestoreRevocations(sessions: live.count)
                revocations.oauthGrants = try connection.run("DELETE FROM oauth_grants", [])
                revocations.enrollmentLinks =
                    try connection.run("DELETE FROM enrollment_tokens", []) + connection.run("DELETE FROM email_tokens", [])
                revocations.challenges =
                    try connection.run("DELETE FROM challenges WHERE ceremony <> 'spentAuthentication'", [])
                    + connection.run("DELETE FROM oauth_codes WHERE used_at IS NULL", [])
                return revocations
            }
        }
    }
}
