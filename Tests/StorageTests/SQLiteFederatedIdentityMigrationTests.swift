import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

@Suite("SQLite migration 12: identities at OpenID providers")
struct SQLiteFederatedIdentityMigrationTests {
    /// A version-11 database at `path` holding one account.
    private func versionElevenDatabase(_ path: String) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.execute(
            SQLiteMigrations.steps.prefix(11).map(\.sql).joined()
                + "CREATE UNIQUE INDEX users_by_name_key ON users(name_key); PRAGMA user_version = 11;"
        )
        try connection.statement(
            "INSERT INTO users (id, name, display_name, created_at, app_account_token, name_key) VALUES (?1, 'ann', 'Ann', 0, ?2, 'ann')"
        ).run([.blob(StoreSamples.userID(1)), .text(StoreSamples.appAccountToken(1).uuidString.lowercased())])
    }

    /// The account of a version-11 database gets an identity after the migration, and loses it with the account.
    @Test func aVersionElevenAccountLinksAnIdentity() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        try versionElevenDatabase(path)
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        #expect(
            try store.withConnection { connection throws(SQLiteError) in try SQLiteMigrations.currentVersion(connection) }
                == SQLiteMigrations.latestVersion
        )
        let identity = FederatedIdentityRecord(
            issuer: "https://accounts.google.com",
            subject: "110169484474386276334",
            userID: StoreSamples.userID(1),
            provider: "google",
            email: nil,
            emailVerified: false,
            createdAt: StoreSamples.now
        )
        try store.transaction { transaction throws(StorageError) in try transaction.insertFederatedIdentity(identity) }
        #expect(try store.integrityCheck() == ["ok"])
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(1)) }
        #expect(
            try store.transaction { transaction throws(StorageError) in
                try transaction.federatedIdentity(issuer: identity.issuer, subject: identity.subject)
            } == nil
        )
    }
}
