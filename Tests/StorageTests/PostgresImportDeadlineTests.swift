import Foundation
import Storage
import StorageSQLite
import TestSupport
import Testing

@testable import StoragePostgres

/// Issue 42: an import's deadline grows with what it imports. Before, the whole import ran under one fixed deadline
/// (600 s), so a large `passkeyd migrate --to postgres` that used to succeed rolled back with `storage.unavailable`.
/// Here the allowances are small, so that a few thousand rows need the per-row part.
@Suite("PostgreSQL import deadline", PostgresClusterScope())
struct PostgresImportDeadlineTests {
    private static let eventCount = 3_000

    /// A source with `eventCount` events, and an empty PostgreSQL database to import it into.
    private func source() throws -> (export: StoreExport, target: PostgresStore, database: String) {
        let source = try SQLiteStore.inMemory()
        try source.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try source.transaction { transaction throws(StorageError) in
            for number in 1...Self.eventCount { try transaction.appendEvent(StoreSamples.event(number, owner: 1)) }
        }
        let cluster = try PostgresClusterScope.current()
        let database = try cluster.createDatabase()
        let target = try PostgresStore(connectionString: cluster.connectionString(database: database), poolSize: 1)
        return (try source.exportRecords(), target, database)
    }

    private func eventsIn(_ database: String) throws -> String {
        try PostgresClusterScope.current().psql("SELECT count(*) FROM events", database: database)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// 20 ms does not hold 3 000 inserts; 20 ms plus 5 ms a row does.
    @Test func anImportGetsTimeForEachRow() throws {
        let (export, target, database) = try source()
        defer { target.close() }
        try target.importRecords(export, base: .milliseconds(20), perRow: .milliseconds(5))
        #expect(try eventsIn(database) == "\(Self.eventCount)")
    }

    /// An import that cannot lock the tables (another session holds one) gives up when its statement's reply deadline
    /// has passed, and so does the server: no backend is left queued for the lock, where it would block every writer
    /// of the tables (it waited up to 600 s before).
    @Test func anImportThatCannotLockLeavesNoBackendWaiting() throws {
        let (export, first, database) = try source()
        first.close()
        let cluster = try PostgresClusterScope.current()
        let connectionString = cluster.connectionString(database: database)
        let target = try PostgresStore(connectionString: connectionString, poolSize: 1, replyDeadline: .seconds(2))
        defer { target.close() }
        let holder = try PostgresConnection(connectionString: connectionString)
        try holder.execute("BEGIN; LOCK TABLE sessions IN ROW EXCLUSIVE MODE")
        defer { holder.rollBack() }
        let started = ContinuousClock.now
        #expect(throws: StorageError.self) { try target.importRecords(export) }
        #expect(ContinuousClock.now - started < .seconds(3))
        let waiting = try cluster.psql(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event_type = 'Lock'",
            database: database
        )
        #expect(waiting.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "a backend still waits for the lock")
    }

    /// Past its allowance an import still ends, and nothing of it is kept: a later import finds the database empty.
    @Test func anImportPastItsAllowanceRollsBack() throws {
        let (export, target, database) = try source()
        defer { target.close() }
        let started = ContinuousClock.now
        do {
            try target.importRecords(export, base: .milliseconds(20), perRow: .zero)
            Issue.record("\(Self.eventCount) rows were imported in 20 ms")
        } catch {
            #expect(error.code == .unavailable, "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(5), "the import ended by its deadline")
        #expect(try eventsIn(database) == "0")
        try target.importRecords(export, base: .seconds(5), perRow: .milliseconds(5))
        #expect(try eventsIn(database) == "\(Self.eventCount)")
    }
}
