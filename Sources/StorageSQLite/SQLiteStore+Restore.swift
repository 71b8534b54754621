import Foundation
import Storage

extension SQLiteStore: RestorableStore {
    public func endGrantsAfterRestore(now: Date, event: (SessionRecord) -> NewEvent) throws(StorageError) -> RestoreRevocations {
        try withRecords { records throws(StorageError) in
            try records.immediateTransaction { () throws(StorageError) -> RestoreRevocations in
                let live = try records.run { connection throws(SQLiteError) in
                    try connection.statement("SELECT \(SQLiteRecords.sessionColumns) FROM sessions WHERE expires_at > ?1 ORDER BY user_id, id")
                        .run([.date(now)], row: SQLiteRecords.sessionRecord)
                }
                for session in live { try records.appendEvent(event(session)) }
                return try records.run { connection throws(SQLiteError) in
                    try connection.statement("DELETE FROM sessions").run([])
                    var revocations = RestoreRevocations(sessions: live.count)
                    revocations.oauthGrants = try connection.statement("DELETE FROM oauth_grants").run([])
                    revocations.enrollmentLinks =
                        try connection.statement("DELETE FROM enrollment_tokens").run([]) + connection.statement("DELETE FROM email_tokens").run([])
                    revocations.challenges =
                        try connection.statement("DELETE FROM challenges WHERE ceremony <> 'spentAuthentication'").run([])
                        + connection.statement("DELETE FROM oauth_codes WHERE used_at IS NULL").run([])
                    return revocations
                }
            }
        }
    }
}
