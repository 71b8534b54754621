import Foundation
import Storage

extension SQLiteStore: ExportableStore {
    public func exportRecords() throws(StorageError) -> StoreExport {
        try withConnection { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) -> StoreExport in
                var export = StoreExport()
                export.users = try connection.statement("SELECT \(SQLiteRecords.userColumns) FROM users ORDER BY id")
                    .run([], row: SQLiteRecords.userRecord)
                export.credentials = try connection.statement("SELECT \(SQLiteRecords.credentialColumns) FROM credentials ORDER BY id")
                    .run([], row: SQLiteRecords.credentialRecord)
                export.sessions = try connection.statement("SELECT \(SQLiteRecords.sessionColumns) FROM sessions ORDER BY token_hash")
                    .run([], row: SQLiteRecords.sessionRecord)
                export.appleIdentities = try connection.statement(
                    "SELECT \(SQLiteRecords.appleIdentityColumns) FROM apple_identities ORDER BY subject"
                ).run([], row: SQLiteRecords.appleIdentityRecord)
                export.appleRefreshTokens = try connection.statement(
                    "SELECT \(SQLiteRecords.appleRefreshTokenColumns) FROM apple_refresh_tokens ORDER BY subject, client_id"
                ).run([], row: SQLiteRecords.appleRefreshTokenRecord)
                export.federatedIdentities = try connection.statement(
                    "SELECT \(SQLiteRecords.federatedIdentityColumns) FROM federated_identities ORDER BY issuer, subject"
                ).run([], row: SQLiteRecords.federatedIdentityRecord)
                export.linkDeclines = try connection.statement(
                    "SELECT first_user_id, second_user_id FROM link_declines ORDER BY first_user_id, second_user_id"
                ).run([]) { row throws(SQLiteError) in LinkDecline(row.blob(0), row.blob(1)) }
                export.appleNotificationWatermarks = try connection.statement(
                    "SELECT subject, event_at, expires_at FROM apple_notification_watermarks ORDER BY subject"
                ).run([]) { row throws(SQLiteError) in AppleNotificationWatermark(subject: row.text(0), eventAt: row.date(1), until: row.date(2)) }
                export.enrollmentTokens = try connection.statement(
                    "SELECT \(SQLiteRecords.enrollmentTokenColumns) FROM enrollment_tokens ORDER BY token_hash"
                ).run([], row: SQLiteRecords.enrollmentTokenRecord)
                export.recoveryCodes = try connection.statement(
                    "SELECT user_id, code_hash, created_at FROM recovery_codes ORDER BY user_id, code_hash"
                ).run([]) { row throws(SQLiteError) in RecoveryCodeRecord(userID: row.blob(0), codeHash: row.blob(1), createdAt: row.date(2)) }
                export.passwordHashes = try connection.statement(
                    "SELECT \(SQLiteRecords.passwordHashColumns) FROM password_hashes ORDER BY user_id"
                ).run([], row: SQLiteRecords.passwordHashRecord)
                let nonces = try connection.statement("SELECT hash, expires_at FROM apple_nonces").run([]) { row throws(SQLiteError) in
                    (row.blob(0), row.date(1))
                }
                export.appleNonces = Dictionary(nonces) { first, _ in first }
                export.appleRevocations = try connection.statement(
                    "SELECT id, encrypted_token, client_id, not_before, attempts FROM apple_revocations ORDER BY id"
                ).run([], row: SQLiteRecords.appleRevocationRecord)
                export.events = try connection.statement("SELECT \(SQLiteRecords.eventColumns) FROM events ORDER BY id")
                    .run([], row: SQLiteRecords.eventRecord)
                export.webhookSubscriptions = try SQLiteRecords.webhookSubscriptions(connection)
                export.webhookDeliveries = try connection.statement(
                    "SELECT \(SQLiteRecords.webhookDeliveryColumns) FROM webhook_deliveries ORDER BY id"
                ).run([], row: SQLiteRecords.webhookDeliveryRecord)
                export.signingKeys = try connection.statement("SELECT \(SQLiteRecords.signingKeyColumns) FROM signing_keys ORDER BY id")
                    .run([]) { row throws(SQLiteError) in SQLiteRecords.signingKeyRecord(row) }
                export.oauthGrants = try connection.statement("SELECT \(SQLiteRecords.grantColumns) FROM oauth_grants ORDER BY id")
                    .run([], row: SQLiteRecords.grantRecord)
                export.oauthRefreshTokens = try connection.statement(
                    "SELECT token_hash, grant_id, created_at, used_at FROM oauth_refresh_tokens ORDER BY grant_id, token_hash"
                ).run([], row: SQLiteRecords.refreshTokenRecord)
                return export
            }
        }
    }
}
