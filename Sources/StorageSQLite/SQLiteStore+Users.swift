import Storage

extension SQLiteStore {
    public func createUser(_ user: UserRecord, firstCredential: CredentialRecord) throws(StorageError) {
        guard firstCredential.userID == user.id else {
            throw .notFound("the first credential must belong to the new user")
        }
        let transports = try firstCredential.transportsJSON()
        try withConnection { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) in
                try SQLiteStore.insert(user, into: connection)
                try SQLiteStore.insert(firstCredential, transports: transports, into: connection)
            }
        }
    }

    public func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT id, name, display_name, created_at FROM users WHERE id = ?1"
            ).run([.blob(id)], row: SQLiteStore.userRecord).first
        }
    }

    public func user(name: String) throws(StorageError) -> UserRecord? {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT id, name, display_name, created_at FROM users WHERE name = ?1"
            ).run([.text(name)], row: SQLiteStore.userRecord).first
        }
    }

    public func deleteUser(id: [UInt8]) throws(StorageError) {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM users WHERE id = ?1").run([.blob(id)])
        }
    }

    static func insert(_ user: UserRecord, into connection: SQLiteConnection) throws(SQLiteError) {
        try connection.statement(
            "INSERT INTO users (id, name, display_name, created_at) VALUES (?1, ?2, ?3, ?4)"
        ).run([.blob(user.id), .text(user.name), .text(user.displayName), .date(user.createdAt)])
    }

    static func userRecord(_ row: SQLiteRow) throws(SQLiteError) -> UserRecord {
        UserRecord(id: row.blob(0), name: row.text(1), displayName: row.text(2), createdAt: row.date(3))
    }
}
