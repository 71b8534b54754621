import Foundation
import Storage

extension PostgresRecords {
    static let enrollmentTokenColumns = "token_hash, user_id, created_at, expires_at"

    func insertEnrollmentToken(_ token: EnrollmentTokenRecord) throws(StorageError) {
        try run { connection throws(PostgresError) in
            try connection.run(
                "INSERT INTO enrollment_tokens (\(Self.enrollmentTokenColumns)) VALUES ($1, $2, $3, $4)",
                [.bytea(token.tokenHash), .bytea(token.userID), .date(token.createdAt), .date(token.expiresAt)]
            )
        }
    }

    func enrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.enrollmentTokenColumns) FROM enrollment_tokens WHERE token_hash = $1",
                [.bytea(hash)],
                row: Self.enrollmentTokenRecord
            ).first
        }
    }

    func deleteEnrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "DELETE FROM enrollment_tokens WHERE token_hash = $1 RETURNING \(Self.enrollmentTokenColumns)",
                [.bytea(hash)],
                row: Self.enrollmentTokenRecord
            ).first
        }
    }

    func purgeExpiredEnrollmentTokens(now: Date) throws(StorageError) -> Int {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM enrollment_tokens WHERE expires_at <= $1", [.date(now)])
        }
    }

    static func enrollmentTokenRecord(_ row: PostgresRow) throws(PostgresError) -> EnrollmentTokenRecord {
        EnrollmentTokenRecord(tokenHash: row.bytes(0), userID: row.bytes(1), createdAt: try row.date(2), expiresAt: try row.date(3))
    }

    func replaceRecoveryCodes(userID: [UInt8], hashes: [[UInt8]], createdAt: Date) throws(StorageError) {
        let exists = try user(id: userID) != nil
        try validate { () throws(StorageError) in
            guard exists else { throw StorageError(.notFound, "the user does not exist") }
        }
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM recovery_codes WHERE user_id = $1", [.bytea(userID)])
            for hash in hashes {
                try connection.run(
                    "INSERT INTO recovery_codes (user_id, code_hash, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                    [.bytea(userID), .bytea(hash), .date(createdAt)]
                )
            }
        }
    }

    func deleteRecoveryCode(userID: [UInt8], hash: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM recovery_codes WHERE user_id = $1 AND code_hash = $2", [.bytea(userID), .bytea(hash)]) == 1
        }
    }

    func recoveryCodeCount(userID: [UInt8]) throws(StorageError) -> Int {
        try run { connection throws(PostgresError) in
            try connection.run("SELECT count(*) FROM recovery_codes WHERE user_id = $1", [.bytea(userID)]) { row throws(PostgresError) in
                Int(try row.integer(0))
            }.first ?? 0
        }
    }
}
