import Dispatch
import Foundation
import Storage
import Synchronization
import TestSupport
import Testing

@testable import StoragePostgres

/// Issue 42: a node learns of a change of the signing keys from PostgreSQL (`NOTIFY` in the transaction that writes
/// them, `LISTEN` on one connection per node) instead of reading them every second.
@Suite("PostgreSQL signing-key announcements", PostgresClusterScope())
struct PostgresSigningKeyFeedTests {
    /// What a watcher was told, counted, with a wait for the next announcement.
    private final class Announcements: Sendable {
        private let count = Atomic<Int>(0)
        private let arrived = DispatchSemaphore(value: 0)

        func record() {
            count.add(1, ordering: .relaxed)
            arrived.signal()
        }

        var total: Int { count.load(ordering: .relaxed) }

        /// Whether an announcement arrives within `seconds`.
        func next(within seconds: Double) -> Bool {
            arrived.wait(timeout: .now() + seconds) == .success
        }
    }

    private func watch(_ store: PostgresStore) -> Announcements {
        let announcements = Announcements()
        store.watchSigningKeys { announcements.record() }
        return announcements
    }

    @Test func aCommittedChangeIsAnnouncedToEveryNodeAndNothingElseIs() throws {
        let cluster = try PostgresClusterScope.current()
        let database = cluster.connectionString(database: try cluster.createDatabase())
        let writer = try PostgresStore(connectionString: database, poolSize: 2)
        let reader = try PostgresStore(connectionString: database, poolSize: 2)
        defer { [writer, reader].forEach { $0.close() } }
        #expect(!reader.canWatchSigningKeys, "not before it listens")
        let announcements = watch(reader)
        #expect(announcements.next(within: 5), "announced once it listens (changes before it were not)")
        #expect(reader.canWatchSigningKeys)

        let key = StoreSamples.signingKey(1, activatesAt: StoreSamples.now)
        try writer.transaction { transaction throws(StorageError) in try transaction.insertSigningKey(key) }
        #expect(announcements.next(within: 2), "an insert")
        // A rolled-back write and a read announce nothing.
        _ = try? writer.transaction { transaction throws(StorageError) in
            try transaction.insertSigningKey(StoreSamples.signingKey(2, activatesAt: StoreSamples.now))
            throw StorageError(.invalidRecord, "rolled back")
        }
        _ = try writer.transaction { transaction throws(StorageError) in try transaction.signingKeys() }
        _ = try writer.transaction { transaction throws(StorageError) in try transaction.deleteSigningKey(id: "no-such-kid") }
        #expect(!announcements.next(within: 1))
        #expect(announcements.total == 2)

        let retiresAt = StoreSamples.now.addingTimeInterval(60)
        _ = try writer.transaction { transaction throws(StorageError) in
            try transaction.retireSigningKey(id: key.id, retiresAt: retiresAt, expiresAt: retiresAt.addingTimeInterval(60))
        }
        #expect(announcements.next(within: 2), "a retirement")
        _ = try writer.transaction { transaction throws(StorageError) in try transaction.deleteSigningKey(id: key.id) }
        #expect(announcements.next(within: 2), "a deletion")
    }

    /// A listening connection the server closed (a restart, an administrator) is made again, logged, and announced,
    /// since a change made meanwhile was not.
    @Test func aLostListenerConnectsAgainAndAnnounces() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let notices = Mutex<[PostgresNotice]>([])
        let store = try PostgresStore(
            connectionString: cluster.connectionString(database: name),
            poolSize: 1,
            notices: { notice in notices.withLock { $0.append(notice) } }
        )
        defer { store.close() }
        let announcements = watch(store)
        #expect(announcements.next(within: 5))
        let terminated = try cluster.psql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(name)' AND query LIKE 'LISTEN%'"
        )
        #expect(terminated.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        #expect(announcements.next(within: 5), "announced after connecting again")
        #expect(notices.withLock { $0.contains { $0.severity == "WARNING" && $0.message.contains("signing-key listener") } })
        // It listens again: a change made now is announced.
        try store.transaction { transaction throws(StorageError) in
            try transaction.insertSigningKey(StoreSamples.signingKey(3, activatesAt: StoreSamples.now))
        }
        #expect(announcements.next(within: 2))
    }

    /// The loss itself is announced, while the store says it cannot watch: a key worker that chose a 30 s wait while
    /// the listener listened chooses again (the polling interval) instead of trusting a revoked key that long.
    @Test func aLostListenerAnnouncesTheLossAtOnce() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: name), poolSize: 1)
        defer { store.close() }
        let watching = Mutex<[Bool]>([])
        let announced = DispatchSemaphore(value: 0)
        store.watchSigningKeys {
            watching.withLock { $0.append(store.canWatchSigningKeys) }
            announced.signal()
        }
        #expect(announced.wait(timeout: .now() + 5) == .success)
        _ = try cluster.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)' AND query LIKE 'LISTEN%'"
        )
        #expect(announced.wait(timeout: .now() + 5) == .success)
        #expect(watching.withLock { $0 } == [true, false], "announced on the loss, while not listening")
        #expect(announced.wait(timeout: .now() + 5) == .success, "and again once it listens")
        #expect(watching.withLock { $0.last } == true)
    }

    /// The listening connection only reads: a peer gone silently (no reset) is noticed by TCP keep-alives alone, which
    /// the listener sets to give up within 30 s (a pooled connection's, a minute), so that it connects again.
    @Test func theListenerGivesUpASilentPeerWithinThirtySeconds() throws {
        let cluster = try PostgresClusterScope.current()
        let listener = PostgresListener(
            connectionString: cluster.connectionString(database: try cluster.createDatabase()),
            notices: PostgresNoticeReceiver { _ in }
        )
        let connection = try listener.connect()
        func option(_ level: Int32, _ name: Int32) -> Int32 {
            var value: Int32 = -1
            var length = socklen_t(MemoryLayout<Int32>.size)
            #expect(getsockopt(connection.socket, level, name, &value, &length) == 0)
            return value
        }
        #expect(option(SOL_SOCKET, SO_KEEPALIVE) == 1)
        let tcp = Int32(IPPROTO_TCP)
        let silence = option(tcp, TCP_KEEPIDLE) + option(tcp, TCP_KEEPINTVL) * option(tcp, TCP_KEEPCNT)
        #expect(silence > 0 && silence <= 30, "given up after \(silence) s of silence")
    }

    /// Behind a transaction-mode pooler `LISTEN` does not hold: only a listening connection string of its own
    /// listens, and it hears changes made through the pooler.
    @Test func behindATransactionPoolerOnlyAListeningConnectionStringListens() throws {
        let cluster = try PostgresClusterScope.current()
        let bouncer = try PgBouncer(inFrontOf: cluster)
        defer { bouncer.destroy() }
        let name = try cluster.createDatabase()
        let pooled = bouncer.connectionString(database: name)
        let deaf = try PostgresStore(connectionString: pooled, poolSize: 1, transactionPooling: true)
        defer { deaf.close() }
        #expect(!deaf.canWatchSigningKeys)
        let listening = try PostgresStore(
            connectionString: pooled,
            poolSize: 1,
            transactionPooling: true,
            listenConnectionString: cluster.connectionString(database: name)
        )
        defer { listening.close() }
        let announcements = watch(listening)
        #expect(announcements.next(within: 5))
        #expect(listening.canWatchSigningKeys)
        try deaf.transaction { transaction throws(StorageError) in
            try transaction.insertSigningKey(StoreSamples.signingKey(4, activatesAt: StoreSamples.now))
        }
        #expect(announcements.next(within: 2))
    }

    /// `database.listen` may name a session-mode pooler, which refuses the `options` startup parameter: the listener
    /// sends none, and listens through it.
    @Test func aListenerThroughASessionPoolerThatRefusesStartupOptionsListens() throws {
        let cluster = try PostgresClusterScope.current()
        let bouncer = try PgBouncer(inFrontOf: cluster, poolMode: "session", ignoredStartupParameters: "extra_float_digits")
        defer { bouncer.destroy() }
        let name = try cluster.createDatabase()
        let store = try PostgresStore(
            connectionString: cluster.connectionString(database: name),
            poolSize: 1,
            listenConnectionString: bouncer.connectionString(database: name)
        )
        defer { store.close() }
        let announcements = watch(store)
        #expect(announcements.next(within: 5), "listening through the session-mode pooler")
        #expect(store.canWatchSigningKeys)
        try store.transaction { transaction throws(StorageError) in
            try transaction.insertSigningKey(StoreSamples.signingKey(5, activatesAt: StoreSamples.now))
        }
        #expect(announcements.next(within: 2))
    }

    /// A listener that cannot connect does not count as announcing: the key worker then reads the keys every 5 s, not
    /// every 30 s, so a revoked key leaves the node within 5 s.
    @Test func aListenerThatCannotConnectLeavesTheNodePollingEvery5Seconds() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let store = try PostgresStore(
            connectionString: cluster.connectionString(database: name),
            poolSize: 1,
            listenConnectionString: "host=127.0.0.1 port=\(try LoopbackPort.free()) dbname=\(name) connect_timeout=2"
        )
        defer { store.close() }
        let announcements = watch(store)
        #expect(!announcements.next(within: 2))
        #expect(!store.canWatchSigningKeys, "the key worker then reads every 5 s (AnnouncedKeyChangeTests)")
    }
}
