import Foundation
import Storage
import Synchronization
import TestSupport
import Testing

@testable import StorageSQLite

/// The read-only connections of a database file (`SQLiteReaders`): a single read waits neither for the writer's lock
/// nor for its commit, sees every write that returned, and ends with the store.
@Suite("SQLiteStore read connections")
struct SQLiteReadersTests {
    @Test func aReadDoesNotWaitForTheWriter() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let inTransaction = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let writer = Thread {
            try? store.transaction { transaction throws(StorageError) in
                try transaction.insertUser(StoreSamples.user(2))
                inTransaction.signal()
                // Holds the writer (its lock and the database's write lock) until the read below has run.
                _ = release.wait(timeout: .now() + 10)
            }
        }
        writer.start()
        #expect(inTransaction.wait(timeout: .now() + 5) == .success)
        let started = Date()
        #expect(try store.user(id: StoreSamples.userID(1)) == StoreSamples.user(1))
        #expect(try store.credential(id: StoreSamples.credential(1, owner: 1).id) == StoreSamples.credential(1, owner: 1))
        // The transaction's own row is not visible until it commits.
        #expect(try store.user(id: StoreSamples.userID(2)) == nil)
        #expect(Date().timeIntervalSince(started) < 5, "the reads ran while the writer held its transaction")
        release.signal()
        let deadline = Date().addingTimeInterval(5)
        while try store.user(id: StoreSamples.userID(2)) == nil, Date() < deadline { usleep(10_000) }
        #expect(try store.user(id: StoreSamples.userID(2)) == StoreSamples.user(2), "the commit is seen by the next read")
    }

    @Test func readsFromManyThreadsShareABoundedSetOfConnections() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            for _ in 0..<20 {
                let found = (try? store.user(id: StoreSamples.userID(1))) == StoreSamples.user(1)
                if !found { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect((1...SQLiteReaders.maximumOpen).contains(store.readConnectionCount))
    }

    @Test func aClosedStoreRefusesReadsAndClosesItsReadConnections() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        #expect(try store.user(id: StoreSamples.userID(1)) != nil)
        #expect(store.readConnectionCount == 1)
        store.close()
        #expect(store.readConnectionCount == 0)
        for read in [{ _ = try store.user(id: StoreSamples.userID(1)) }, { _ = try store.session(tokenHash: [1], now: Date()) }] {
            do {
                try read()
                Issue.record("a read of a closed store succeeded")
            } catch let error as StorageError {
                #expect(error.code == .unavailable)
            }
        }
    }

    @Test func aReadConnectionRefusesWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let reader = try SQLiteConnection(path: path, readOnly: true)
        #expect(throws: SQLiteError.self) { try reader.execute("DELETE FROM users") }
    }
}
