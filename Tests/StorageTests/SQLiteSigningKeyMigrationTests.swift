import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

@Suite("SQLite migration 8: the signing keys")
struct SQLiteSigningKeyMigrationTests {
    /// A version-7 database (administration and recovery) keeps its accounts and sessions, finds a session by its public ID
    /// and gains an empty table of signing keys (`SigningKeyMigration`).
    @Test func aVersionSevenDatabaseGainsTheSigningKeys() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.execute(SQLiteMigrations.steps.prefix(7).map(\.sql).joined() + "PRAGMA user_version = 7;")
            try connection.statement(
                "INSERT INTO users (id, name, display_name, created_at, app_account_token) VALUES (?1, 'alice', 'Alice', 0, ?2)"
            ).run([.blob(StoreSamples.userID(1)), .text("0b0e7a5c-0c4a-4f43-9d55-8d3c4a0f1e2b")])
            try connection.statement(
                """
                INSERT INTO sessions (token_hash, id, user_id, method, user_verified, created_at, authenticated_at, expires_at)
                VALUES (x'01', ?1, ?2, 'passkey', 1, 0, 0, ?3)
                """
            ).run([.blob(SigningKeyMigration.sessionID), .blob(StoreSamples.userID(1)), .date(SigningKeyMigration.sessionExpiresAt)])
        }
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        #expect(
            try store.withConnection { connection throws(SQLiteError) in try SQLiteMigrations.currentVersion(connection) }
                == SQLiteMigrations.latestVersion
        )
        try SigningKeyMigration.check(store)
        #expect(try store.integrityCheck() == ["ok"])
    }
}
