import Storage

extension SQLiteStore {
    /// `PRAGMA integrity_check`: `["ok"]` for a sound database, otherwise SQLite's list of problems.
    public func integrityCheck() throws(StorageError) -> [String] {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("PRAGMA integrity_check").run([]) { row throws(SQLiteError) in row.text(0) }
        }
    }
}
