import Foundation
import Storage

extension PostgresRecords {
    static let emailTokenColumns = "token_hash, purpose, user_id, address, code_hash, attempts, created_at, expires_at"

    func replaceEmailToken(_ token: EmailTokenRecord) throws(StorageError) {
        let exists = try user(id: token.userID) != nil
        try validate { () throws(StorageError) in
            guard exists else { throw StorageError(.notFound, "the user does not exist") }
        }
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM email_tokens WHERE user_id = $1 AND purpose = $2", [.bytea(token.userID), .text(token.purpose.rawValue)])
            try connection.run(
                "INSERT INTO email_tokens (\(Self.emailTokenColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                [
                    .bytea(token.tokenHash), .text(token.purpose.rawValue), .bytea(token.userID), .text(token.address),
                    token.codeHash.map { .bytea($0) } ?? .null, .bigint(Int64(token.attempts)), .date(token.createdAt), .date(token.expiresAt),
                ]
            )
        }
    }

    func emailToken(userID: [UInt8], purpose: EmailTokenRecord.Purpose) throws(StorageError) -> EmailTokenRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.emailTokenColumns) FROM email_tokens WHERE user_id = $1 AND purpose = $2",
                [.bytea(userID), .text(purpose.rawValue)],
                row: Self.emailTokenRecord
            ).first
        }
    }

    func deleteEmailToken(hash: [UInt8]) throws(StorageError) -> EmailTokenRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "DELETE FROM email_tokens WHERE token_hash = $1 RETURNING \(Self.emailTokenColumns)",
                [.bytea(hash)],
                row: Self.emailTokenRecord
            ).first
        }
    }

    func countEmailCodeAttempt(userID: [UInt8], purpose: EmailTokenRecord.Purpose) throws(StorageError) -> EmailTokenRecord? {
        // One UPDATE: the row lock orders concurrent tries, and each sees the count of the one before.
        try run { connection throws(PostgresError) in
            try connection.run(
                "UPDATE email_tokens SET attempts = attempts + 1 WHERE user_id = $1 AND purpose = $2 RETURNING \(Self.emailTokenColumns)",
                [.bytea(userID), .text(purpose.rawValue)],
                row: Self.emailTokenRecord
            ).first
        }
    }

    func purgeExpiredEmailTokens(now: Date) throws(StorageError) -> Int {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM email_tokens WHERE expires_at <= $1", [.date(now)])
        }
    }

    static func emailTokenRecord(_ row: PostgresRow) throws(PostgresError) -> EmailTokenRecord {
        EmailTokenRecord(
            tokenHash: row.bytes(0),
            purpose: EmailTokenRecord.Purpose(rawValue: row.text(1)) ?? .recovery,
            userID: row.bytes(2),
            address: row.text(3),
            codeHash: row.isNull(4) ? nil : row.bytes(4),
            attempts: Int(try row.integer(5)),
            createdAt: try row.date(6),
            expiresAt: try row.date(7)
        )
    }
}
