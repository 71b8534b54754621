import Foundation
import Storage

extension SQLiteRecords {
    static let emailTokenColumns = "token_hash, purpose, user_id, address, code_hash, attempts, created_at, expires_at"

    func replaceEmailToken(_ token: EmailTokenRecord) throws(StorageError) {
        let exists = try user(id: token.userID) != nil
        try validate { () throws(StorageError) in
            guard exists else { throw StorageError(.notFound, "the user does not exist") }
        }
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM email_tokens WHERE user_id = ?1 AND purpose = ?2").run([
                .blob(token.userID), .text(token.purpose.rawValue),
            ])
            try connection.statement("INSERT INTO email_tokens (\(Self.emailTokenColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)").run([
                .blob(token.tokenHash), .text(token.purpose.rawValue), .blob(token.userID), .text(token.address),
                token.codeHash.map { .blob($0) } ?? .null, .integer(Int64(token.attempts)), .date(token.createdAt), .date(token.expiresAt),
            ])
        }
    }

    func emailToken(userID: [UInt8], purpose: EmailTokenRecord.Purpose) throws(StorageError) -> EmailTokenRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.emailTokenColumns) FROM email_tokens WHERE user_id = ?1 AND purpose = ?2")
                .run([.blob(userID), .text(purpose.rawValue)], row: Self.emailTokenRecord).first
        }
    }

    func deleteEmailToken(hash: [UInt8]) throws(StorageError) -> EmailTokenRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM email_tokens WHERE token_hash = ?1 RETURNING \(Self.emailTokenColumns)")
                .run([.blob(hash)], row: Self.emailTokenRecord).first
        }
    }

    func countEmailCodeAttempt(userID: [UInt8], purpose: EmailTokenRecord.Purpose) throws(StorageError) -> EmailTokenRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "UPDATE email_tokens SET attempts = attempts + 1 WHERE user_id = ?1 AND purpose = ?2 RETURNING \(Self.emailTokenColumns)"
            ).run([.blob(userID), .text(purpose.rawValue)], row: Self.emailTokenRecord).first
        }
    }

    func purgeExpiredEmailTokens(now: Date) throws(StorageError) -> Int {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM email_tokens WHERE expires_at <= ?1").run([.date(now)])
        }
    }

    static func emailTokenRecord(_ row: SQLiteRow) throws(SQLiteError) -> EmailTokenRecord {
        EmailTokenRecord(
            tokenHash: row.blob(0),
            purpose: EmailTokenRecord.Purpose(rawValue: row.text(1)) ?? .recovery,
            userID: row.blob(2),
            address: row.text(3),
            codeHash: row.isNull(4) ? nil : row.blob(4),
            attempts: Int(row.integer(5)),
            createdAt: row.date(6),
            expiresAt: row.date(7)
        )
    }
}
