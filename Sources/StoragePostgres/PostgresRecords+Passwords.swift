import Foundation
import Storage

extension PostgresRecords {
    static let passwordHashColumns = "user_id, hash, created_at"

    func passwordHash(userID: [UInt8]) throws(StorageError) -> PasswordHashRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.passwordHashColumns) FROM password_hashes WHERE user_id = $1",
                [.bytea(userID)],
                row: Self.passwordHashRecord
            ).first
        }
    }

    /// The foreign key to users refuses a hash of no account (`storage.notFound`).
    func setPasswordHash(_ record: PasswordHashRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try record.validate() }
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                INSERT INTO password_hashes (\(Self.passwordHashColumns)) VALUES ($1, $2, $3)
                ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at
                """,
                [.bytea(record.userID), .text(record.hash), .date(record.createdAt)]
            )
        }
    }

    func deletePasswordHash(userID: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM password_hashes WHERE user_id = $1", [.bytea(userID)]) == 1
        }
    }

    func retirePasswordHashes(passkeyStoredBefore cutoff: Date, limit: Int) throws(StorageError) -> Int {
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                DELETE FROM password_hashes WHERE user_id IN (
                    SELECT p.user_id FROM password_hashes p
                    WHERE EXISTS (SELECT 1 FROM credentials c WHERE c.user_id = p.user_id AND c.created_at <= $1)
                    LIMIT $2)
                """,
                [.date(cutoff), .bigint(Int64(max(0, limit)))]
            )
        }
    }

    static func passwordHashRecord(_ row: PostgresRow) throws(PostgresError) -> PasswordHashRecord {
        PasswordHashRecord(userID: row.bytes(0), hash: row.text(1), createdAt: try row.date(2))
    }
}
