import Dispatch
import Foundation
import Storage
import Synchronization
import TestSupport
import Testing

@testable import StoragePostgres

#if canImport(Glibc)
import Glibc
#endif

/// Issue 42: a PostgreSQL server that accepts and never answers (every process of the cluster stopped with SIGSTOP)
/// fails a store call within the reply deadline instead of hanging it, and the store works again once it answers.
@Suite("PostgreSQL frozen", .serialized)
struct PostgresFrozenServerTests {
    /// The error a call threw and how long it took.
    static func timed(_ call: () throws(StorageError) -> Void) -> (error: StorageError?, seconds: Double) {
        let started = Date()
        do throws(StorageError) {
            try call()
            return (nil, Date().timeIntervalSince(started))
        } catch {
            return (error, Date().timeIntervalSince(started))
        }
    }

    @Test func aFrozenServerFailsACallWithinTheDeadlineAndTheStoreRecovers() throws {
        let cluster = try PostgresCluster()
        defer {
            try? cluster.signalEveryProcess(SIGCONT)
            cluster.destroy()
        }
        let store = try PostgresStore(
            connectionString: cluster.connectionString(database: try cluster.createDatabase()),
            poolSize: 2,
            replyDeadline: .seconds(2)
        )
        defer { store.close() }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))

        try cluster.signalEveryProcess(SIGSTOP)
        let read = Self.timed { () throws(StorageError) in _ = try store.user(id: StoreSamples.userID(1)) }
        #expect(read.error?.code == .unavailable && read.error?.outage == .timedOut, "\(String(describing: read.error))")
        #expect(read.seconds >= 1.9 && read.seconds < 4, "\(read.seconds) s")
        // The abandoned connection is not lent again: the next call connects afresh, and gives up at connect_timeout.
        let write = Self.timed { () throws(StorageError) in try store.seedSession(StoreSamples.session(1, owner: 1)) }
        #expect(write.error?.code == .unavailable, "\(String(describing: write.error))")
        #expect(write.seconds < 8, "\(write.seconds) s")

        try cluster.signalEveryProcess(SIGCONT)
        #expect(try store.user(id: StoreSamples.userID(1)) == StoreSamples.user(1))
        try store.seedSession(StoreSamples.session(1, owner: 1))
        #expect(try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: StoreSamples.now) != nil)
    }

    /// A call that ran out of time gives up its own connection only: the pool's idle ones are kept and lent again
    /// once the server answers (dropping them all made every waiting request reconnect, and left their backends).
    @Test func aCallThatRanOutOfTimeLeavesTheOtherIdleConnectionsInThePool() throws {
        let cluster = try PostgresCluster()
        defer {
            try? cluster.signalEveryProcess(SIGCONT)
            cluster.destroy()
        }
        let store = try PostgresStore(
            connectionString: cluster.connectionString(database: try cluster.createDatabase()),
            poolSize: 2,
            replyDeadline: .seconds(2)
        )
        defer { store.close() }
        func backend() throws -> Int64 {
            try store.withConnection { connection throws(PostgresError) in
                try connection.run("SELECT pg_backend_pid()::int8", []) { row throws(PostgresError) in try row.integer(0) }.first ?? 0
            }
        }
        // Two idle connections: two calls at once, each holding its connection until the other has one too.
        let pids = Mutex<Set<Int64>>([])
        let holding = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let pid = try? store.withConnection { connection throws(PostgresError) in
                holding.add(1, ordering: .relaxed)
                let pid = try connection.run("SELECT pg_backend_pid()::int8", []) { row throws(PostgresError) in try row.integer(0) }.first
                let started = Date()
                while holding.load(ordering: .relaxed) < 2, Date().timeIntervalSince(started) < 5 { usleep(1_000) }
                return pid ?? 0
            }
            if let pid { pids.withLock { _ = $0.insert(pid) } }
        }
        let before = pids.withLock { $0 }
        #expect(before.count == 2)

        try cluster.signalEveryProcess(SIGSTOP)
        let read = Self.timed { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in try transaction.user(id: StoreSamples.userID(1)) }
        }
        #expect(read.error?.outage == .timedOut, "\(String(describing: read.error))")
        try cluster.signalEveryProcess(SIGCONT)
        #expect(before.contains(try backend()), "the other idle connection is lent again, not a new one")
    }

    /// A shared-limit draw is over within `limitDrawDeadline` on a frozen server, whatever it waits for: the `SET` an
    /// idle connection needs (the statement's own 10 s deadline does not apply), or a new connection (libpq's
    /// `connect_timeout` of 5 s does not either).
    @Test func aSharedLimitDrawOnAFrozenServerIsOverWithinItsDeadline() throws {
        let cluster = try PostgresCluster()
        defer {
            try? cluster.signalEveryProcess(SIGCONT)
            cluster.destroy()
        }
        let store = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 2)
        defer { store.close() }
        try cluster.signalEveryProcess(SIGSTOP)
        let draw = { () throws(StorageError) in
            _ = try store.drawTokens(limit: "account", key: [7], count: 1, perSecond: 1, burst: 10, now: StoreSamples.now)
        }
        let onIdleConnection = Self.timed(draw)
        #expect(onIdleConnection.error?.outage == .timedOut, "\(String(describing: onIdleConnection.error))")
        #expect(onIdleConnection.seconds >= 0.9 && onIdleConnection.seconds < 1.5, "\(onIdleConnection.seconds) s")
        let onNewConnection = Self.timed(draw)
        #expect(onNewConnection.error?.outage == .timedOut, "\(String(describing: onNewConnection.error))")
        #expect(onNewConnection.seconds >= 0.9 && onNewConnection.seconds < 1.5, "\(onNewConnection.seconds) s")

        try cluster.signalEveryProcess(SIGCONT)
        try draw()
    }
}
