import Storage

extension PostgresRecords {
    static let userColumns = "id, name, display_name, created_at"

    func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        try run { connection throws(PostgresError) in
            try connection.run("SELECT \(Self.userColumns) FROM users WHERE id = $1", [.bytea(id)], row: Self.userRecord).first
        }
    }

    func user(name: String) throws(StorageError) -> UserRecord? {
        try run { connection throws(PostgresError) in
            try connection.run("SELECT \(Self.userColumns) FROM users WHERE name = $1", [.text(name)], row: Self.userRecord).first
        }
    }

    func insertUser(_ user: UserRecord) throws(StorageError) {
        var parameters = PostgresParameters()
        let values = parameters.bind(Self.userValues(user))
        try run { connection throws(PostgresError) in
            try connection.run("INSERT INTO users (\(Self.userColumns)) VALUES (\(values))", parameters.values)
        }
    }

    /// Foreign keys with ON DELETE CASCADE remove the account's other rows.
    func deleteUser(id: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM users WHERE id = $1", [.bytea(id)]) == 1
        }
    }

    /// The values of `userColumns`, with their types.
    static func userValues(_ user: UserRecord) -> [(PostgresValue, String)] {
        [(.bytea(user.id), "bytea"), (.text(user.name), "text"), (.text(user.displayName), "text"), (.date(user.createdAt), "float8")]
    }

    static func userRecord(_ row: PostgresRow) throws(PostgresError) -> UserRecord {
        UserRecord(id: row.bytes(0), name: row.text(1), displayName: row.text(2), createdAt: try row.date(3))
    }
}
