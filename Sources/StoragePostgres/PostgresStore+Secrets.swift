import Storage

extension PostgresStore: SharedSecretStore {
    public func sharedSecret(named name: String, proposing proposed: [UInt8]) throws(StorageError) -> [UInt8] {
        let stored = try withConnection { connection throws(PostgresError) -> [UInt8]? in
            try connection.run(
                "INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
                [.text(name), .bytea(proposed)]
            )
            // A separate statement: its snapshot sees the row of a concurrent node whose insert won.
            return try connection.run("SELECT value FROM server_secrets WHERE name = $1", [.text(name)]) { row throws(PostgresError) in
                row.bytes(0)
            }.first
        }
        guard let stored else { throw StorageError(.unavailable, "the shared secret \(name) was not stored") }
        return stored
    }
}
