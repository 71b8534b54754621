import Foundation
import Storage

extension PostgresStore {
    public func session(tokenHash: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        try withRecords { records throws(StorageError) in try records.session(tokenHash: tokenHash, now: now) }
    }

    public func session(id: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        try withRecords { records throws(StorageError) in try records.session(id: id, now: now) }
    }

    public func recordSessionUse(tokenHash: [UInt8], at: Date) throws(StorageError) {
        try withConnectionDeferringDurability { connection throws(PostgresError) in
            try connection.run("UPDATE sessions SET last_used_at = $2 WHERE token_hash = $1", [.bytea(tokenHash), .date(at)])
        }
    }

    public func purgeExpiredSessions(now: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(PostgresError) in
            try connection.run("DELETE FROM sessions WHERE expires_at <= $1", [.date(now)])
        }
    }
}
