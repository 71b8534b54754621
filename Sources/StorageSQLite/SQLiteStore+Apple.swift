import Foundation
import Storage

extension SQLiteStore {
    public func purgeExpiredNonces(now: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM apple_nonces WHERE expires_at <= ?1").run([.date(now)])
                + connection.statement("DELETE FROM apple_notification_watermarks WHERE expires_at <= ?1").run([.date(now)])
        }
    }

    public func dueRevocations(now: Date, limit: Int) throws(StorageError) -> [AppleRevocationRecord] {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                """
                SELECT id, encrypted_token, client_id, not_before, attempts FROM apple_revocations
                WHERE not_before <= ?1 ORDER BY not_before, id LIMIT ?2
                """
            ).run([.date(now), .integer(Int64(max(0, limit)))], row: SQLiteRecords.appleRevocationRecord)
        }
    }

    public func completeRevocation(id: Int64) throws(StorageError) {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM apple_revocations WHERE id = ?1").run([.integer(id)])
        }
    }

    public func rescheduleRevocation(id: Int64, notBefore: Date) throws(StorageError) {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("UPDATE apple_revocations SET not_before = ?2, attempts = attempts + 1 WHERE id = ?1")
                .run([.integer(id), .date(notBefore)])
        }
    }
}
