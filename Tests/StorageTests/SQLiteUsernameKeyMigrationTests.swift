import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

@Suite("SQLite migration 10: usernames compared by their key")
struct SQLiteUsernameKeyMigrationTests {
    /// A version-9 database at `path` holding `accounts` (number, name, creation time).
    private func versionNineDatabase(_ path: String, _ accounts: [(number: UInt8, name: String, createdAt: Double)]) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.execute(SQLiteMigrations.steps.prefix(9).map(\.sql).joined() + "PRAGMA user_version = 9;")
        for account in accounts {
            try connection.statement("INSERT INTO users (id, name, display_name, created_at, app_account_token) VALUES (?1, ?2, ?2, ?3, ?4)")
                .run([
                    .blob(StoreSamples.userID(account.number)), .text(account.name), .real(account.createdAt),
                    .text(UsernameKeyMigration.appAccountToken(account.number)),
                ])
        }
    }

    /// A version-9 database whose names collide once case is ignored (`UsernameKeyMigration`): the oldest keeps each
    /// name, the others are suffixed with an event, and the key is unique.
    @Test func aVersionNineDatabaseSettlesCollidingNames() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        try versionNineDatabase(path, UsernameKeyMigration.accounts)
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        #expect(
            try store.withConnection { connection throws(SQLiteError) in try SQLiteMigrations.currentVersion(connection) }
                == SQLiteMigrations.latestVersion
        )
        try UsernameKeyMigration.check(store)
        #expect(try store.integrityCheck() == ["ok"])
    }

    /// The migration runs once: reopening renames nothing more and writes no second event.
    @Test func reopeningRenamesNothingMore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        try versionNineDatabase(path, [(1, "Ann", 1), (2, "ann", 2)])
        try SQLiteStore(path: path).close()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        #expect(try store.user(id: StoreSamples.userID(2))?.name == "ann-2")
        #expect(try store.events(after: 0, limit: 10).count == 1)
    }
}
