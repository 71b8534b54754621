import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

@Suite("SQLite migration 2: Sign in with Apple")
struct SQLiteAppleMigrationTests {
    @Test func aVersionOneDatabaseKeepsItsRowsAndGainsTheAppleTables() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.execute(SQLiteMigrations.steps[0].sql + "PRAGMA user_version = 1;")
            try connection.statement("INSERT INTO users (id, name, display_name, created_at) VALUES (?1, 'alice', 'Alice', 0)")
                .run([.blob(StoreSamples.userID(1))])
        }
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        #expect(
            try store.withConnection { connection throws(SQLiteError) in try SQLiteMigrations.currentVersion(connection) }
                == SQLiteMigrations.latestVersion
        )
        #expect(try store.user(name: "alice")?.id == StoreSamples.userID(1))
        try store.seedAppleIdentity(StoreSamples.appleIdentity("001.a", owner: 1))
        #expect(
            try store.transaction { transaction throws(StorageError) in
                try transaction.rememberNonce([1], until: StoreSamples.now.addingTimeInterval(1), now: StoreSamples.now)
            }
        )
        let queued = try store.transaction { transaction throws(StorageError) in
            try transaction.enqueueRevocation(token: [1], clientID: "com.example.app", notBefore: StoreSamples.now)
        }
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(1)) }
        #expect(try store.appleIdentity(subject: "001.a") == nil)
        #expect(try store.dueRevocations(now: StoreSamples.now, limit: 5).map(\.id) == [queued])
    }
}
