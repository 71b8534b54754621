import Foundation
import Storage

extension PostgresStore {
    public func purgeExpiredNonces(now: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(PostgresError) in
            try connection.run("DELETE FROM apple_nonces WHERE expires_at <= $1", [.date(now)])
                + connection.run("DELETE FROM apple_notification_watermarks WHERE expires_at <= $1", [.date(now)])
        }
    }

    public func dueRevocations(now: Date, limit: Int) throws(StorageError) -> [AppleRevocationRecord] {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(PostgresRecords.appleRevocationColumns) FROM apple_revocations WHERE not_before <= $1 ORDER BY not_before, id LIMIT $2",
                [.date(now), .bigint(Int64(max(0, limit)))],
                row: PostgresRecords.appleRevocationRecord
            )
        }
    }

    public func completeRevocation(id: Int64) throws(StorageError) {
        try withConnection { connection throws(PostgresError) in
            try connection.run("DELETE FROM apple_revocations WHERE id = $1", [.bigint(id)])
        }
    }

    public func rescheduleRevocation(id: Int64, notBefore: Date) throws(StorageError) {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "UPDATE apple_revocations SET not_before = $2, attempts = attempts + 1 WHERE id = $1",
                [.bigint(id), .date(notBefore)]
            )
        }
    }
}
