import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

/// Issue 42: a failing SQLite store says what failed (`StorageError.outage`), from SQLite's result code, so that the
/// `503 storage_unavailable` and the log do not say "cannot reach" for a full disk.
@Suite("SQLite failures name what failed")
struct SQLiteOutageTests {
    /// Appends an event of 8 KiB; the error it throws, if any.
    static func append(_ number: Int, to store: SQLiteStore) -> StorageError? {
        var event = StoreSamples.event(number, owner: nil)
        event.data = [UInt8](repeating: 0x20, count: NewEvent.maximumDataBytes)
        do throws(StorageError) {
            _ = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(event) }
            return nil
        } catch {
            return error
        }
    }

    @Test func aFullDatabaseIsNoSpace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        // SQLITE_FULL without filling a disk: the database may not grow beyond the pages it has.
        try store.withConnection { connection throws(SQLiteError) in
            let pages = try connection.statement("PRAGMA page_count").run([]) { row throws(SQLiteError) in row.integer(0) }
            _ = try connection.statement("PRAGMA max_page_count = \(pages.first ?? 1)").run([]) { _ throws(SQLiteError) in () }
        }
        let error = (1...20).lazy.compactMap { Self.append($0, to: store) }.first
        #expect(error?.code == .unavailable)
        #expect(error?.outage == .noSpace, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("storage.unavailable (noSpace): ") == true)
    }

    @Test func aReadOnlyDatabaseIsReadOnlyAndWritesAgainWhenItIsNot() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        // SQLITE_READONLY without a read-only file (root writes any file): the writer takes no writes.
        try store.withConnection { connection throws(SQLiteError) in try connection.execute("PRAGMA query_only = 1") }
        let error = Self.append(1, to: store)
        #expect(error?.code == .unavailable)
        #expect(error?.outage == .readOnly, "\(String(describing: error))")
        try store.withConnection { connection throws(SQLiteError) in try connection.execute("PRAGMA query_only = 0") }
        #expect(Self.append(2, to: store) == nil)
    }

    /// `/readyz`'s write probe is a real durable write (a frame appended to the emptied WAL), refused as the
    /// ceremonies' writes are.
    @Test func theWriteProbeWritesAndIsRefusedByAReadOnlyDatabase() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let walSize = { ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? -1 }
        try store.withConnection { connection throws(SQLiteError) in try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        #expect(walSize() == 0)
        try store.probeWrite()
        #expect(walSize() > 0)
        try store.withConnection { connection throws(SQLiteError) in try connection.execute("PRAGMA query_only = 1") }
        #expect(throws: StorageError.self) { try store.probeWrite() }
        do {
            try store.probeWrite()
        } catch {
            #expect(error.outage == .readOnly, "\(error)")
        }
        try store.withConnection { connection throws(SQLiteError) in try connection.execute("PRAGMA query_only = 0") }
        try store.probeWrite()
        #expect(try store.status(now: StoreSamples.now).isMigrated)
    }

    @Test func aLockHeldBeyondTheBusyTimeoutIsTimedOut() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let other = try SQLiteConnection(path: path)
        try other.execute("BEGIN IMMEDIATE")
        let started = Date()
        let error = Self.append(1, to: store)
        try other.execute("ROLLBACK")
        #expect(error?.outage == .timedOut, "\(String(describing: error))")
        #expect(Date().timeIntervalSince(started) >= Double(SQLiteStore.busyTimeoutMilliseconds) / 1000 - 0.5)
        #expect(Self.append(2, to: store) == nil)
    }

    /// Each of SQLite's primary result codes that make a store unavailable, and one that names nothing (an I/O error).
    @Test(arguments: [(Int32(13), StorageError.Outage.noSpace), (8, .readOnly), (5, .timedOut), (6, .timedOut), (14, .unreachable)])
    func resultCodesMapToWhatFailed(resultCode: Int32, outage: StorageError.Outage) {
        #expect(SQLiteError.failure("step", resultCode: resultCode, connection: nil).storageError.outage == outage)
        // An extended code of the same primary code (SQLITE_READONLY_DBMOVED, SQLITE_BUSY_SNAPSHOT …) too.
        #expect(SQLiteError.failure("step", resultCode: resultCode | (4 << 8), connection: nil).storageError.outage == outage)
    }

    @Test func anIOErrorNamesNothing() {
        let error = SQLiteError.failure("step", resultCode: 10, connection: nil).storageError
        #expect(error.code == .unavailable && error.outage == nil)
    }
}
