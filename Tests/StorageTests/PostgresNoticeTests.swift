import Foundation
import Storage
import Synchronization
import TestSupport
import Testing

@testable import StoragePostgres

/// Issue 42: libpq printed PostgreSQL's notices and the `FATAL` of a closed connection on standard error, as plain
/// text in a log of one JSON object per line. The store hands them to its owner (`serve` logs them as JSON).
@Suite("PostgreSQL notices", PostgresClusterScope())
struct PostgresNoticeTests {
    @Test func noticesAndTheFatalOfAClosedConnectionReachTheOwner() throws {
        let cluster = try PostgresClusterScope.current()
        let received = Mutex<[PostgresNotice]>([])
        let store = try PostgresStore(
            connectionString: cluster.connectionString(database: try cluster.createDatabase()),
            poolSize: 1,
            notices: { notice in received.withLock { $0.append(notice) } }
        )
        try store.pool.withConnection { connection throws(PostgresError) in
            try connection.execute("DO $$ BEGIN RAISE NOTICE 'passkeyd %', repeat('x', 1000); END $$")
        }
        let notice = try #require(received.withLock { $0.first })
        #expect(notice.severity == "NOTICE" && notice.code == "00000")
        #expect(notice.message.hasPrefix("passkeyd xxx") && notice.message.utf8.count == PostgresNotice.maximumMessageLength)

        try cluster.psql("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = 'passkeyd'")
        // With a timeout, pg_terminate_backend returns once the backend has gone, its farewell sent: without one it
        // returned at once and both calls below could run before the backend died, leaving the farewell unread.
        // The next call reads the server's farewell (when it arrived before the call, the pool connects afresh at once;
        // otherwise that call fails and the pool reconnects for the next).
        _ = try? store.user(id: StoreSamples.userID(1))
        #expect(try store.user(id: StoreSamples.userID(1)) == nil)
        #expect(received.withLock { $0.contains { $0.severity == "FATAL" && $0.code == "57P01" } }, "\(received.withLock { $0 })")
    }
}
