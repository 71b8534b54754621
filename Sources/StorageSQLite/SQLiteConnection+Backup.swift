import CSQLite

extension SQLiteConnection {
    /// Copies this connection's main database into `destination`'s with SQLite's online backup API, in one step: the
    /// copy is one read transaction's snapshot (in WAL mode, writers on other connections go on meanwhile; a commit
    /// made during the copy is not in it). `destination`'s own content is replaced.
    func copy(into destination: SQLiteConnection) throws(SQLiteError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw SQLiteError.failure("backup_init", resultCode: sqlite3_extended_errcode(destination.handle), connection: destination.handle)
        }
        // -1: every page in this one step, so that the copy is a single snapshot. Busy or locked means another
        // connection of this process holds the destination, which is a new file here: nothing to wait for.
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE else { throw SQLiteError.failure("backup_step", resultCode: stepped, connection: handle) }
        guard finished == SQLITE_OK else { throw SQLiteError.failure("backup_finish", resultCode: finished, connection: destination.handle) }
    }
}
