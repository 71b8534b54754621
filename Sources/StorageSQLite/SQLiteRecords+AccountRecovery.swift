import Foundation
import Storage

extension SQLiteRecords {
    static let enrollmentTokenColumns = "token_hash, user_id, created_at, expires_at"

    func insertEnrollmentToken(_ token: EnrollmentTokenRecord) throws(StorageError) {
        try run { connection throws(SQLiteError) in
            try connection.statement("INSERT INTO enrollment_tokens (\(Self.enrollmentTokenColumns)) VALUES (?1, ?2, ?3, ?4)")
                .run([.blob(token.tokenHash), .blob(token.userID), .date(token.createdAt), .date(token.expiresAt)])
        }
    }

    func enrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.enrollmentTokenColumns) FROM enrollment_tokens WHERE token_hash = ?1")
                .run([.blob(hash)], row: Self.enrollmentTokenRecord).first
        }
    }

    func deleteEnrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM enrollment_tokens WHERE token_hash = ?1 RETURNING \(Self.enrollmentTokenColumns)")
                .run([.blob(hash)], row: Self.enrollmentTokenRecord).first
        }
    }

    func purgeExpiredEnrollmentTokens(now: Date) throws(StorageError) -> Int {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM enrollment_tokens WHERE expires_at <= ?1").run([.date(now)])
        }
    }

    static func enrollmentTokenRecord(_ row: SQLiteRow) throws(SQLiteError) -> EnrollmentTokenRecord {
        EnrollmentTokenRecord(tokenHash: row.blob(0), userID: row.blob(1), createdAt: row.date(2), expiresAt: row.date(3))
    }

    func replaceRecoveryCodes(userID: [UInt8], hashes: [[UInt8]], createdAt: Date) throws(StorageError) {
        let exists = try user(id: userID) != nil
        try validate { () throws(StorageError) in
            guard exists else { throw StorageError(.notFound, "the user does not exist") }
        }
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM recovery_codes WHERE user_id = ?1").run([.blob(userID)])
            let insert = try connection.statement("INSERT OR IGNORE INTO recovery_codes (user_id, code_hash, created_at) VALUES (?1, ?2, ?3)")
            for hash in hashes {
                try insert.run([.blob(userID), .blob(hash), .date(createdAt)])
            }
        }
    }

    func deleteRecoveryCode(userID: [UInt8], hash: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM recovery_codes WHERE user_id = ?1 AND code_hash = ?2").run([.blob(userID), .blob(hash)]) == 1
        }
    }

    func recoveryCodeCount(userID: [UInt8]) throws(StorageError) -> Int {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT count(*) FROM recovery_codes WHERE user_id = ?1").run([.blob(userID)]) { row throws(SQLiteError) in
                Int(row.integer(0))
            }.first ?? 0
        }
    }
}
