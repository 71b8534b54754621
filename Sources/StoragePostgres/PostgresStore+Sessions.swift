import Foundation
import Storage

extension PostgresStore {
    public func createSession(_ session: SessionRecord) throws(StorageError) {
        try withConnection { connection throws(PostgresError) in
            try PostgresStore.insert(session, into: connection)
        }
    }

    static func insert(_ session: SessionRecord, into connection: PostgresConnection) throws(PostgresError) {
        try connection.run(
            "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
            [.bytea(session.tokenHash), .bytea(session.userID), .date(session.createdAt), .date(session.expiresAt)]
        )
    }

    public func session(tokenHash: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                """
                SELECT token_hash, user_id, created_at, expires_at FROM sessions WHERE token_hash = $1 AND expires_at > $2
                """,
                [.bytea(tokenHash), .date(now)]
            ) { row throws(PostgresError) in
                SessionRecord(tokenHash: row.bytes(0), userID: row.bytes(1), createdAt: try row.date(2), expiresAt: try row.date(3))
            }.first
        }
    }

    public func deleteSession(tokenHash: [UInt8]) throws(StorageError) {
        try withConnection { connection throws(PostgresError) in
            try connection.run("DELETE FROM sessions WHERE token_hash = $1", [.bytea(tokenHash)])
        }
    }

    public func deleteSessions(userID: [UInt8]) throws(StorageError) {
        try withConnection { connection throws(PostgresError) in
            try connection.run("DELETE FROM sessions WHERE user_id = $1", [.bytea(userID)])
        }
    }

    public func purgeExpiredSessions(now: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(PostgresError) in
            try connection.run("DELETE FROM sessions WHERE expires_at <= $1", [.date(now)])
        }
    }
}
