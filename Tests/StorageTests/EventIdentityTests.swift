import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres
@testable import StorageSQLite

/// The event's identity outside the store (`EventRecord.publicID`): a UUID for every event appended by this release;
/// `evt_<sequence>` for the events written before the column (SQLite 12, PostgreSQL 11) and by a 0.1.0 node during a
/// rolling upgrade, so that a delivery pending across the upgrade is retried under the ID it was first sent with.
@Suite("Event identities")
struct EventIdentityTests {
    /// The legacy form, and the UUID form, of a public ID.
    @Test func aPublicIDIsTheUUIDOrTheLegacySequence() {
        let uuid = StoreSamples.eventID(7)
        #expect(EventRecord(id: 42, uuid: nil, type: "x", userID: nil, occurredAt: StoreSamples.now, data: []).publicID == "evt_42")
        #expect(
            EventRecord(id: 42, uuid: uuid, type: "x", userID: nil, occurredAt: StoreSamples.now, data: []).publicID == "evt_\(uuid.lowercaseText)"
        )
        #expect(EventRecord.publicID(sequence: 42, uuid: uuid) == "evt_\(uuid.lowercaseText)")
    }

    /// A version-11 database with events and pending deliveries (as release 0.1.0 left it), migrated: the events keep
    /// `evt_<id>`; an event a 0.1.0 node appends afterwards (it knows nothing of the column) too; new ones get UUIDs.
    @Test func aVersionElevenDatabaseKeepsItsLegacyIDs() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        let connection = try SQLiteConnection(path: path)
        try connection.execute(SQLiteMigrations.steps.prefix(11).map(\.sql).joined() + "PRAGMA user_version = 11;")
        try connection.execute("INSERT INTO webhook_subscriptions (endpoint_id, event_type) VALUES ('app', '*')")
        let oldNode = "INSERT INTO events (type, user_id, occurred_at, data) VALUES ('user.deleted', NULL, ?1, x'7b7d')"
        for offset in [1.0, 2.0] {
            let at = SQLiteValue.date(StoreSamples.now.addingTimeInterval(offset))
            try connection.statement(oldNode).run([at])
            try connection.statement(
                """
                INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, queued_at, next_attempt_at, lease_until, updated_at)
                VALUES (?1, 'app', 'pending', 1, ?2, ?2, 0, ?2)
                """
            ).run([.integer(Int64(offset)), at])
        }
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        #expect(
            try store.withConnection { connection throws(SQLiteError) in try SQLiteMigrations.currentVersion(connection) }
                == SQLiteMigrations.latestVersion
        )
        // A 0.1.0 node of a rolling upgrade writes on, without the column; this release appends with a UUID.
        try connection.statement(oldNode).run([.date(StoreSamples.now.addingTimeInterval(3))])
        let new = StoreSamples.event(4, owner: nil)
        _ = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(new) }
        let events = try store.allEvents()
        #expect(events.map(\.publicID) == ["evt_1", "evt_2", "evt_3", "evt_\(new.id.lowercaseText)"])
        #expect(events.map(\.uuid) == [nil, nil, nil, new.id])
        let claimed = try store.claimWebhookDeliveries(
            endpointID: "app",
            owner: "worker",
            now: StoreSamples.now.addingTimeInterval(10),
            leaseUntil: StoreSamples.now.addingTimeInterval(40),
            limit: 10
        )
        #expect(
            claimed.map(\.event.publicID) == ["evt_1", "evt_2", "evt_\(new.id.lowercaseText)"],
            "the pending deliveries (the 0.1.0 node's third has none)"
        )
        // The index refuses a second row with one UUID, whoever writes it.
        #expect(throws: SQLiteError.self) {
            try connection.statement("INSERT INTO events (type, occurred_at, data, uuid) VALUES ('x', 0, x'', ?1)").run([.text(new.id.lowercaseText)])
        }
    }

}

@Suite("Event identities on PostgreSQL", PostgresClusterScope())
struct PostgresEventIdentityTests {
    /// On PostgreSQL, an event a 0.1.0 node appends (without the column) keeps `evt_<id>`; a repeated UUID is refused
    /// by the unique index as `storage.duplicateKey`.
    @Test func aPostgresEventWithoutUUIDKeepsItsLegacyID() throws {
        let cluster = try PostgresClusterScope.current()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 2)
        let new = StoreSamples.event(1, owner: nil)
        _ = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(new) }
        try store.withConnection { connection throws(PostgresError) in
            _ = try connection.run(
                "INSERT INTO events (type, user_id, occurred_at, data) VALUES ('user.deleted', NULL, $1, $2)",
                [.date(StoreSamples.now), .bytea(Array("{}".utf8))]
            )
        }
        let events = try store.allEvents()
        #expect(events.map(\.uuid) == [new.id, nil])
        #expect(events.map(\.publicID) == ["evt_\(new.id.lowercaseText)", "evt_\(events[1].id)"])
        let refused = try store.withConnection { connection throws(PostgresError) -> StorageError? in
            do throws(PostgresError) {
                _ = try connection.run(
                    "INSERT INTO events (type, occurred_at, data, uuid) VALUES ('x', 0, $1, $2)",
                    [.bytea([]), .text(new.id.lowercaseText)]
                )
                return nil
            } catch {
                return error.storageError
            }
        }
        #expect(refused?.code == .duplicateKey)
    }
}
