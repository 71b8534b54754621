import Foundation
import Storage

extension SQLiteStore {
    public func session(tokenHash: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        try reading { records throws(StorageError) in try records.session(tokenHash: tokenHash, now: now) }
    }

    public func session(id: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        try reading { records throws(StorageError) in try records.session(id: id, now: now) }
    }

    public func recordSessionUse(tokenHash: [UInt8], at: Date) throws(StorageError) {
        try withConnectionDeferringDurability { connection throws(SQLiteError) in
            try connection.statement("UPDATE sessions SET last_used_at = ?2 WHERE token_hash = ?1").run([.blob(tokenHash), .date(at)])
        }
    }

    public func purgeExpiredSessions(now: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM sessions WHERE expires_at <= ?1").run([.date(now)])
        }
    }
}
