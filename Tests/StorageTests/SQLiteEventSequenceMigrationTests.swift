import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

@Suite("SQLite migration 24: events without AUTOINCREMENT")
struct SQLiteEventSequenceMigrationTests {
    /// A version-23 database at `path` (the steps' SQL, as the migration of each release applied them) with one webhook
    /// subscription and four events, the first without a UUID (as before version 12), each with a pending delivery; the
    /// newest event and its delivery then deleted, so that both sequence numbers are above the largest stored id.
    private func versionTwentyThreeDatabase(_ path: String) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA foreign_keys = ON;")
        try connection.applySchemaSteps(through: 23)
        try connection.execute("INSERT INTO webhook_subscriptions (endpoint_id, event_type) VALUES ('app', '*')")
        for number in 1...4 {
            let at = SQLiteValue.date(StoreSamples.now.addingTimeInterval(Double(number)))
            let uuid: SQLiteValue = number == 1 ? .null : .text(StoreSamples.eventID(number).lowercaseText)
            try connection.statement("INSERT INTO events (type, user_id, occurred_at, data, uuid) VALUES ('user.deleted', NULL, ?1, x'7b7d', ?2)")
                .run([at, uuid])
            try connection.statement(
                """
                INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, queued_at, next_attempt_at, lease_until, updated_at)
                VALUES (?1, 'app', 'pending', 1, ?2, ?2, 0, ?2)
                """
            ).run([.integer(Int64(number)), at])
        }
        try connection.execute("DELETE FROM events WHERE id = 4;")
    }

    private func rows(_ store: SQLiteStore, _ sql: String, column: Int32 = 0) throws -> [String] {
        try store.withConnection { connection throws(SQLiteError) in
            try connection.statement(sql).run([]) { row throws(SQLiteError) in row.text(column) }
        }
    }

    /// The events and deliveries keep their ids, UUIDs and references; neither sequence goes back; the table has no
    /// `AUTOINCREMENT`, so appending an event leaves `sqlite_sequence` as it was.
    @Test func aVersionTwentyThreeDatabaseKeepsItsEventsAndSequences() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        try versionTwentyThreeDatabase(path)
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        #expect(
            try store.withConnection { connection throws(SQLiteError) in try SQLiteMigrations.currentVersion(connection) }
                == SQLiteMigrations.latestVersion
        )
        #expect(try store.integrityCheck() == ["ok"])
        #expect(try rows(store, "PRAGMA foreign_key_check").isEmpty)
        #expect(try !rows(store, "SELECT sql FROM sqlite_schema WHERE name = 'events'")[0].contains("AUTOINCREMENT"))
        #expect(
            try rows(store, "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('events', 'webhook_deliveries') ORDER BY name") == [
                "events_by_time", "events_by_uuid", "sqlite_autoindex_webhook_deliveries_1", "webhook_deliveries_by_status",
                "webhook_deliveries_chain", "webhook_deliveries_due", "webhook_deliveries_waiting",
            ]
        )
        let kept = try store.allEvents()
        #expect(kept.map(\.id) == [1, 2, 3])
        #expect(kept.map(\.publicID) == ["evt_1"] + (2...3).map { "evt_\(StoreSamples.eventID($0).lowercaseText)" })
        let claimed = try store.claimWebhookDeliveries(
            endpointID: "app",
            owner: "worker",
            now: StoreSamples.now.addingTimeInterval(10),
            leaseUntil: StoreSamples.now.addingTimeInterval(40),
            limit: 10
        )
        #expect(claimed.map(\.delivery.id) == [1, 2, 3])
        #expect(claimed.map(\.event.id) == [1, 2, 3])

        let sequences = "SELECT name || '=' || seq FROM sqlite_sequence ORDER BY name"
        #expect(try rows(store, sequences) == ["webhook_deliveries=4"])
        let new = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(StoreSamples.event(5, owner: nil)) }
        #expect(new == 5, "above the purged event 4")
        #expect(try rows(store, sequences) == ["webhook_deliveries=5"], "the new event's delivery is 5; no row for events")
        // A repeated UUID is still refused.
        #expect(throws: StorageError.self) {
            try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(StoreSamples.event(2, owner: nil)) }
        }
    }

    /// Purging every event, the newest included, does not give its id out again.
    @Test func anIDIsNotReusedAfterThePurgeOfTheNewest() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        let appended = try store.transaction { transaction throws(StorageError) in
            [try transaction.appendEvent(StoreSamples.event(1, owner: nil)), try transaction.appendEvent(StoreSamples.event(2, owner: nil))]
        }
        #expect(try store.purgeEvents(occurredBefore: .distantFuture) == 2)
        let next = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(StoreSamples.event(3, owner: nil)) }
        #expect(next == appended[1] + 1)
        #expect(try rows(store, "SELECT last_id FROM event_sequence") == ["\(appended[1])"])
    }
}
