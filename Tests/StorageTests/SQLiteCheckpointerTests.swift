import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

/// The WAL checkpoints of a database file run on the checkpoint thread (`SQLiteCheckpointer`), off the commit path,
/// and lose no committed write.
@Suite("SQLiteStore checkpoint thread")
struct SQLiteCheckpointerTests {
    /// Pages of about 3 KB each in one commit, more than `SQLiteCheckpointer.wakeFrames` WAL frames.
    private static let fillerRows = 1200

    @Test func aWALPastTheThresholdIsCheckpointedByTheThread() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        let store = try SQLiteStore(path: path)
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        #expect(store.checkpointer?.checkpointCount == 0)
        try store.withConnection { connection throws(SQLiteError) in
            try connection.execute(
                """
                CREATE TABLE filler (data BLOB);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.fillerRows))
                INSERT INTO filler SELECT randomblob(3000) FROM n;
                """
            )
        }
        let deadline = Date().addingTimeInterval(10)
        while store.checkpointer?.checkpointCount == 0, Date() < deadline { usleep(5_000) }
        #expect(store.checkpointer?.checkpointCount ?? 0 >= 1, "the commit woke the checkpoint thread")
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size > Self.fillerRows * 3000, "the checkpoint copied the committed pages into the database file")
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        store.close()

        let reopened = try SQLiteStore(path: path)
        defer { reopened.close() }
        #expect(try reopened.user(id: StoreSamples.userID(1)) == StoreSamples.user(1))
        #expect(try reopened.user(id: StoreSamples.userID(2)) == StoreSamples.user(2))
        let rows = try reopened.withConnection { connection throws(SQLiteError) in
            try connection.statement("SELECT count(*) FROM filler").run([]) { row throws(SQLiteError) in row.integer(0) }.first
        }
        #expect(rows == Int64(Self.fillerRows))
    }

    /// A store dropped without `close()` ends its checkpoint thread, which would otherwise wait forever holding a
    /// connection to the file; a store in memory has none.
    @Test func aStoreDroppedWithoutClosingEndsItsThread() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var store: SQLiteStore? = try SQLiteStore(path: directory.newDatabasePath())
        let checkpointer = try #require(store?.checkpointer)
        #expect(checkpointer.isRunning)
        store = nil
        #expect(!checkpointer.isRunning)
        #expect(try SQLiteStore.inMemory().checkpointer == nil)
    }
}
