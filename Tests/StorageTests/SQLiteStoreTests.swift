import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

@Suite("SQLiteStore files")
struct SQLiteStoreTests {
    @Test func createsParentFoldersAndFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("a/b/passkeyd.sqlite").path
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func everythingSurvivesReopening() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        let user = StoreSamples.user(1)
        let credential = StoreSamples.credential(1, owner: 1)
        var used = StoreSamples.credential(2, owner: 1)
        used.lastUsedAt = StoreSamples.now
        used.cloneWarning = true
        let challenge = StoreSamples.challenge(1, userID: user.id)
        let session = StoreSamples.session(1, owner: 1)

        let writer = try SQLiteStore(path: path)
        try writer.seedUser(user, credential: credential)
        try writer.seedCredential(used)
        try writer.insertChallenge(challenge)
        try writer.seedSession(session)
        writer.close()

        let reader = try SQLiteStore(path: path)
        defer { reader.close() }
        #expect(try reader.user(id: user.id) == user)
        #expect(try reader.credentials(userID: user.id) == [credential, used])
        #expect(try reader.session(tokenHash: session.tokenHash, now: StoreSamples.now) == session)
        #expect(try reader.takeChallenge(challenge.challenge, now: StoreSamples.now) == .valid(challenge))
    }

    @Test func droppedStoreReleasesTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        do {
            let writer = try SQLiteStore(path: path)
            try writer.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        }
        let reader = try SQLiteStore(path: path)
        defer { reader.close() }
        #expect(try reader.user(id: StoreSamples.userID(1)) == StoreSamples.user(1))
    }

    @Test func closedStoreThrowsUnavailable() throws {
        let store = try SQLiteStore.inMemory()
        store.close()
        store.close()
        #expect(throws: StorageError.self) { try store.user(id: StoreSamples.userID(1)) }
        do {
            _ = try store.user(id: StoreSamples.userID(1))
        } catch {
            #expect(error.code == .unavailable)
        }
    }

    @Test func migrationsAreIdempotent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        for _ in 1...3 {
            let store = try SQLiteStore(path: path)
            store.close()
        }
        let connection = try SQLiteConnection(path: path)
        #expect(try SQLiteMigrations.currentVersion(connection) == SQLiteMigrations.latestVersion)
        try SQLiteMigrations.migrate(connection, now: StoreSamples.now)
        #expect(try SQLiteMigrations.currentVersion(connection) == SQLiteMigrations.latestVersion)
    }

    /// Every index on `events` is one a query uses: each one costs every event written a page (issue 44). The purge
    /// finds old events by `events_by_time`; the outbox reads them by id.
    @Test func eventIndexesAreTheOnesQueriesUse() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        try SQLiteStore(path: path).close()
        let connection = try SQLiteConnection(path: path)
        let indexes = try connection.statement("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'events' ORDER BY name")
            .run([]) { row throws(SQLiteError) in row.text(0) }
        #expect(indexes == ["events_by_time", "events_by_uuid"])
        let purgePlan = try connection.statement(
            "EXPLAIN QUERY PLAN DELETE FROM events WHERE occurred_at < ?1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id)"
        ).run([.real(0)]) { row throws(SQLiteError) in row.text(3) }
        #expect(purgePlan.contains { $0.contains("events_by_time") })
    }

    @Test func newerDatabaseIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        try SQLiteStore(path: path).close()
        let newer = SQLiteMigrations.latestVersion + 1
        try SQLiteConnection(path: path).execute("PRAGMA user_version = \(newer)")
        do {
            _ = try SQLiteStore(path: path)
            Issue.record("opening a newer database succeeded")
        } catch {
            #expect(error.code == .migrationFailed)
            #expect(error.reason.contains("\(newer)"))
            #expect(error.reason.contains("\(SQLiteMigrations.latestVersion)"))
        }
    }

    @Test func onlyChallengeWritesSkipTheSync() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        // SQLite evaluates this pragma when it prepares it: a distinct text per reading avoids the statement cache.
        func synchronous(_ reading: String) throws -> String {
            try store.withConnection { connection throws(SQLiteError) in
                try connection.statement("PRAGMA synchronous -- \(reading)").run([]) { row throws(SQLiteError) in row.text(0) }.first ?? ""
            }
        }
        func challengeSynchronous(_ reading: String) throws -> String {
            try store.withConnectionDeferringDurability { connection throws(SQLiteError) in
                try connection.statement("PRAGMA synchronous -- \(reading)").run([]) { row throws(SQLiteError) in row.text(0) }.first ?? ""
            }
        }
        #expect(try synchronous("at open") == "2")
        #expect(try challengeSynchronous("challenge") == "1")
        try store.insertChallenge(StoreSamples.challenge(1))
        #expect(try synchronous("after insertChallenge") == "2")
        _ = try store.takeChallenge(StoreSamples.challenge(1).challenge, now: StoreSamples.now)
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        #expect(try synchronous("after takeChallenge and createUser") == "2")
    }

    @Test func usesWALAndDurableSettings() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let settings = try store.withConnection { connection throws(SQLiteError) in
            try ["journal_mode", "synchronous", "foreign_keys", "temp_store"].map { pragma throws(SQLiteError) in
                let values = try connection.statement("PRAGMA \(pragma)").run([]) { row throws(SQLiteError) in
                    row.text(0)
                }
                return values.first ?? ""
            }
        }
        // temp_store 2 (MEMORY): a group commit's savepoint journals never spill to a file in /var/tmp.
        #expect(settings == ["wal", "2", "1", "2"])
    }

    @Test func twoStoresOnOneFileRaceForAChallenge() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        let stores = [try SQLiteStore(path: path), try SQLiteStore(path: path)]
        defer { stores.forEach { $0.close() } }
        for round: UInt8 in 1...10 {
            let challenge = StoreSamples.challenge(round)
            try stores[Int(round) % 2].insertChallenge(challenge)
            let outcomes = StoreContract.takeConcurrently(challenge.challenge, threads: 16) { stores[$0 % 2] }
            #expect(outcomes.valid == 1, "round \(round)")
            #expect(outcomes.unknown == 15, "round \(round)")
            #expect(outcomes.failures.isEmpty, "round \(round)")
        }
    }
}
