import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

@Suite("SQLite migration 6: the account lifecycle")
struct SQLiteAccountMigrationTests {
    /// A version-5 database: every account gets its own stable version-4 appAccountToken (made by the migration, so the
    /// same on every reader), takes its Apple identity's email, and the identity's refresh token moves to its table.
    @Test func aVersionFiveDatabaseGainsTheAccountLifecycle() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.execute(SQLiteMigrations.steps.prefix(5).map(\.sql).joined() + "PRAGMA user_version = 5;")
            for (number, name) in [(UInt8(1), "alice"), (2, "bob")] {
                try connection.statement("INSERT INTO users (id, name, display_name, created_at) VALUES (?1, ?2, ?2, 0)")
                    .run([.blob(StoreSamples.userID(number)), .text(name)])
            }
            try connection.statement(
                """
                INSERT INTO credentials (id, user_id, public_key, algorithm, sign_count, transports, aaguid, backup_eligible, backup_state,
                    attestation_format, attestation_summary, name, created_at, last_used_at, clone_warning, backup_eligibility_changed)
                VALUES (x'0102', ?1, x'00', -7, 0, '[]', x'00', 0, 0, 'none', '', 'Key', 0, NULL, 0, 0)
                """
            ).run([.blob(StoreSamples.userID(2))])
            try connection.statement(
                """
                INSERT INTO apple_identities (subject, user_id, email, email_verified, is_private_email, email_disabled, real_user_status,
                    transfer_subject, encrypted_refresh_token, refresh_token_client_id, created_at)
                VALUES ('001.a', ?1, 'a@privaterelay.appleid.com', 1, 1, 0, 2, '002.transfer', x'0102', 'com.example.app', 5)
                """
            ).run([.blob(StoreSamples.userID(1))])
        }
        let store = try SQLiteStore(path: path)
        #expect(
            try store.withConnection { connection throws(SQLiteError) in try SQLiteMigrations.currentVersion(connection) }
                == SQLiteMigrations.latestVersion
        )
        try AccountLifecycleMigration.check(store)
        let alice = try #require(try store.user(id: StoreSamples.userID(1)))
        #expect(try store.integrityCheck() == ["ok"])
        store.close()
        let reopened = try SQLiteStore(path: path)
        defer { reopened.close() }
        #expect(try reopened.user(id: StoreSamples.userID(1))?.appAccountToken == alice.appAccountToken, "stable")
    }
}
