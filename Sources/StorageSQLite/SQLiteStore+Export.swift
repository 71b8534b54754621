import Foundation
import Storage

extension SQLiteStore: ExportableStore {
    public func exportRecords() throws(StorageError) -> StoreExport {
        try withConnection { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) -> StoreExport in
                var export = StoreExport()
                export.users = try connection.statement(
                    "SELECT id, name, display_name, created_at FROM users ORDER BY id"
                ).run([], row: SQLiteStore.userRecord)
                export.credentials = try connection.statement(
                    "SELECT \(SQLiteStore.credentialColumns) FROM credentials ORDER BY id"
                ).run([], row: SQLiteStore.credentialRecord)
                export.sessions = try connection.statement(
                    "SELECT token_hash, user_id, created_at, expires_at FROM sessions ORDER BY token_hash"
                ).run([]) { row throws(SQLiteError) in
                    SessionRecord(tokenHash: row.blob(0), userID: row.blob(1), createdAt: row.date(2), expiresAt: row.date(3))
                }
                export.appleIdentities = try connection.statement(
                    "SELECT \(SQLiteStore.appleIdentityColumns) FROM apple_identities ORDER BY subject"
                ).run([], row: SQLiteStore.appleIdentityRecord)
                let nonces = try connection.statement("SELECT hash, expires_at FROM apple_nonces").run([]) { row throws(SQLiteError) in
                    (row.blob(0), row.date(1))
                }
                export.appleNonces = Dictionary(nonces) { first, _ in first }
                export.appleRevocations = try connection.statement(
                    "SELECT id, encrypted_token, client_id, not_before, attempts FROM apple_revocations ORDER BY id"
                ).run([]) { row throws(SQLiteError) in
                    AppleRevocationRecord(
                        id: row.integer(0),
                        encryptedToken: row.blob(1),
                        clientID: row.text(2),
                        notBefore: row.date(3),
                        attempts: Int(row.integer(4))
                    )
                }
                return export
            }
        }
    }
}
