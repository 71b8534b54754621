import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

@Suite("SQLite migration 10: usernames compared by their key")
struct SQLiteUsernameKeyMigrationTests {
    /// A version-9 database whose names collide once case is ignored (`UsernameKeyMigration`): the oldest keeps each
    /// name, the others are suffixed with an event, and the key is unique.
    @Test func aVersionNineDatabaseSettlesCollidingNames() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.execute(SQLiteMigrations.steps.prefix(9).map(\.sql).joined() + "PRAGMA user_version = 9;")
            for account in UsernameKeyMigration.accounts {
                try connection.statement("INSERT INTO users (id, name, display_name, created_at, app_account_token) VALUES (?1, ?2, ?2, ?3, ?4)")
                    .run([
                        .blob(StoreSamples.userID(account.number)), .text(account.name), .real(account.createdAt),
                        .text(UsernameKeyMigration.appAccountToken(account.number)),
                    ])
            }
        }
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
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.execute(SQLiteMigrations.steps.prefix(9).map(\.sql).joined() + "PRAGMA user_version = 9;")
            for (number, name) in [(UInt8(1), "Ann"), (2, "ann")] {
                try connection.statement("INSERT INTO users (id, name, display_name, created_at, app_account_token) VALUES (?1, ?2, ?2, ?3, ?4)")
                    .run([
                        .blob(StoreSamples.userID(number)), .text(name), .real(Double(number)), .text(UsernameKeyMigration.appAccountToken(number)),
                    ])
            }
        }
        try SQLiteStore(path: path).close()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        #expect(try store.user(id: StoreSamples.userID(2))?.name == "ann-2")
        #expect(try store.events(after: 0, limit: 10).count == 1)
    }
}
