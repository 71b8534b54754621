import Foundation
import Storage

extension PostgresStore: ImportableStore {
    public func importRecords(_ export: StoreExport) throws(StorageError) {
        var encodedTransports: [String] = []
        for credential in export.credentials {
            encodedTransports.append(try credential.transportsJSON())
        }
        let isEmpty = try withConnection { connection throws(PostgresError) -> Bool in
            try connection.transaction { () throws(PostgresError) -> Bool in
                // Blocks every writer of these tables until the import commits, so nothing slips in between the
                // emptiness check and the copy.
                try connection.execute("LOCK TABLE users, sessions, apple_identities, apple_revocations IN EXCLUSIVE MODE")
                let rows = try connection.run(
                    """
                    SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM sessions)
                        + (SELECT count(*) FROM apple_identities) + (SELECT count(*) FROM apple_revocations)
                    """,
                    []
                ) { row throws(PostgresError) in try row.integer(0) }
                guard rows.first == 0 else { return false }
                for user in export.users {
                    try PostgresStore.insert(user, into: connection)
                }
                for (credential, transports) in zip(export.credentials, encodedTransports) {
                    try PostgresStore.insert(credential, transports: transports, into: connection)
                }
                for session in export.sessions {
                    try PostgresStore.insert(session, into: connection)
                }
                for identity in export.appleIdentities {
                    try PostgresStore.insert(identity, into: connection)
                }
                for (hash, expiresAt) in export.appleNonces {
                    try connection.run(
                        "INSERT INTO apple_nonces (hash, expires_at) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING",
                        [.bytea(hash), .date(expiresAt)]
                    )
                }
                for revocation in export.appleRevocations {
                    try connection.run(
                        """
                        INSERT INTO apple_revocations (id, encrypted_token, client_id, not_before, attempts) VALUES ($1, $2, $3, $4, $5)
                        """,
                        [
                            .bigint(revocation.id), .bytea(revocation.encryptedToken), .text(revocation.clientID),
                            .date(revocation.notBefore), .bigint(Int64(revocation.attempts)),
                        ]
                    )
                }
                // Secrets a node made while the database had no records protect nothing yet: the copied ones win.
                for (name, value) in export.sharedSecrets {
                    try connection.run(
                        "INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
                        [.text(name), .bytea(value)]
                    )
                }
                // New revocations must get IDs after the copied ones.
                try connection.execute(
                    """
                    SELECT setval(pg_get_serial_sequence('apple_revocations', 'id'), coalesce(max(id), 0) + 1, false)
                    FROM apple_revocations
                    """
                )
                return true
            }
        }
        guard isEmpty else {
            throw .notEmpty("the PostgreSQL database already holds passkeyd records; import only into an empty one")
        }
    }
}
