import Storage

extension PostgresStore {
    public func createUser(_ user: UserRecord, firstCredential: CredentialRecord) throws(StorageError) {
        guard firstCredential.userID == user.id else {
            throw .notFound("the first credential must belong to the new user")
        }
        let transports = try firstCredential.transportsJSON()
        try withConnection { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) in
                try PostgresStore.insert(user, into: connection)
                try PostgresStore.insert(firstCredential, transports: transports, into: connection)
            }
        }
    }

    public func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "SELECT id, name, display_name, created_at FROM users WHERE id = $1",
                [.bytea(id)],
                row: PostgresStore.userRecord
            ).first
        }
    }

    public func user(name: String) throws(StorageError) -> UserRecord? {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "SELECT id, name, display_name, created_at FROM users WHERE name = $1",
                [.text(name)],
                row: PostgresStore.userRecord
            ).first
        }
    }

    public func deleteUser(id: [UInt8]) throws(StorageError) {
        try withConnection { connection throws(PostgresError) in
            try connection.run("DELETE FROM users WHERE id = $1", [.bytea(id)])
        }
    }

    static func insert(_ user: UserRecord, into connection: PostgresConnection) throws(PostgresError) {
        try connection.run(
            "INSERT INTO users (id, name, display_name, created_at) VALUES ($1, $2, $3, $4)",
            [.bytea(user.id), .text(user.name), .text(user.displayName), .date(user.createdAt)]
        )
    }

    static func userRecord(_ row: PostgresRow) throws(PostgresError) -> UserRecord {
        UserRecord(id: row.bytes(0), name: row.text(1), displayName: row.text(2), createdAt: try row.date(3))
    }
}
