import Storage

extension SQLiteRecords {
    static let userColumns = "id, name, display_name, created_at"

    func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.userColumns) FROM users WHERE id = ?1").run([.blob(id)], row: Self.userRecord).first
        }
    }

    func user(name: String) throws(StorageError) -> UserRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.userColumns) FROM users WHERE name = ?1").run([.text(name)], row: Self.userRecord).first
        }
    }

    func insertUser(_ user: UserRecord) throws(StorageError) {
        try run { connection throws(SQLiteError) in
            try connection.statement("INSERT INTO users (\(Self.userColumns)) VALUES (?1, ?2, ?3, ?4)")
                .run([.blob(user.id), .text(user.name), .text(user.displayName), .date(user.createdAt)])
        }
    }

    /// Foreign keys with ON DELETE CASCADE remove the account's other rows.
    func deleteUser(id: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM users WHERE id = ?1").run([.blob(id)]) == 1
        }
    }

    static func userRecord(_ row: SQLiteRow) throws(SQLiteError) -> UserRecord {
        UserRecord(id: row.blob(0), name: row.text(1), displayName: row.text(2), createdAt: row.date(3))
    }
}
