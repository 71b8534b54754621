import Foundation
import Storage

extension SQLiteStore {
    public func createSession(_ session: SessionRecord) throws(StorageError) {
        try withConnection { connection throws(SQLiteError) in
            try SQLiteStore.insert(session, into: connection)
        }
    }

    static func insert(_ session: SessionRecord, into connection: SQLiteConnection) throws(SQLiteError) {
        try connection.statement(
            "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)"
        ).run([.blob(session.tokenHash), .blob(session.userID), .date(session.createdAt), .date(session.expiresAt)])
    }

    public func session(tokenHash: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                """
                SELECT token_hash, user_id, created_at, expires_at FROM sessions
                WHERE token_hash = ?1 AND expires_at > ?2
                """
            ).run([.blob(tokenHash), .date(now)]) { row throws(SQLiteError) in
                SessionRecord(
                    tokenHash: row.blob(0),
                    userID: row.blob(1),
                    createdAt: row.date(2),
                    expiresAt: row.date(3)
                )
            }.first
        }
    }

    public func deleteSession(tokenHash: [UInt8]) throws(StorageError) {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM sessions WHERE token_hash = ?1").run([.blob(tokenHash)])
        }
    }

    public func deleteSessions(userID: [UInt8]) throws(StorageError) {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM sessions WHERE user_id = ?1").run([.blob(userID)])
        }
    }

    public func purgeExpiredSessions(now: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM sessions WHERE expires_at <= ?1").run([.date(now)])
        }
    }
}
