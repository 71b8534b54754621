import Dispatch
import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// The token buckets every node draws from (issue 42): atomic for any number of stores on one database, refilled
/// by the elapsed time, purged once full.
@Suite("PostgreSQL shared limit buckets", PostgresClusterScope())
struct PostgresSharedLimitTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let key: [UInt8] = Array(repeating: 7, count: 32)

    static func store(_ database: String) throws -> PostgresStore {
        try PostgresStore(connectionString: try PostgresClusterScope.current().connectionString(database: database), poolSize: 2)
    }

    @Test func aBucketGivesItsBurstThenRefillsWithTime() throws {
        let store = try Self.store(try PostgresClusterScope.current().createDatabase())
        func draw(_ count: Int, at seconds: TimeInterval, key: [UInt8] = Self.key) throws -> (taken: Int, left: Double) {
            try store.drawTokens(limit: "account", key: key, count: count, perSecond: 0.5, burst: 10, now: Self.start + seconds)
        }
        #expect(try draw(4, at: 0) == (4, 6))
        #expect(try draw(4, at: 0) == (4, 2))
        #expect(try draw(4, at: 0) == (2, 0), "only whole tokens left are taken")
        #expect(try draw(1, at: 1) == (0, 0.5), "half a token is not a token")
        #expect(try draw(1, at: 3) == (1, 0.5))
        #expect(try draw(1, at: 2) == (0, 0.5), "a clock behind the bucket's refills nothing")
        #expect(try draw(3, at: 100) == (3, 7), "a bucket refills up to its burst only")
        #expect(try draw(1, at: 0, key: [1]) == (1, 9), "each key has its own bucket")
        #expect(try store.drawTokens(limit: "address", key: Self.key, count: 1, perSecond: 1, burst: 2, now: Self.start) == (1, 1))
    }

    @Test func tenStoresDrawingAtOnceTakeTheBurstExactly() async throws {
        let database = try PostgresClusterScope.current().createDatabase()
        let stores = try (0..<10).map { _ in try Self.store(database) }
        let taken = await withTaskGroup(of: Int.self) { group in
            for store in stores {
                group.addTask {
                    var taken = 0
                    for _ in 0..<20 {
                        let drawn = try? store.drawTokens(limit: "account", key: Self.key, count: 1, perSecond: 0.001, burst: 50, now: Self.start)
                        taken += drawn?.taken ?? 0
                    }
                    return taken
                }
            }
            return await group.reduce(0, +)
        }
        #expect(taken == 50)
    }

    /// A batch (the draws of one node's requests asking at once) is one statement: each key's draws served in their
    /// order from one take, each answered with its bucket's tokens after the whole batch.
    @Test func aBatchServesEachKeysDrawsInOrderInOneStatement() throws {
        let cluster = try PostgresClusterScope.current()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 1)
        let (first, second) = (Self.key, [UInt8](repeating: 9, count: 32))
        _ = try store.drawTokens(limit: "account", key: second, count: 2, perSecond: 0.001, burst: 10, now: Self.start)
        let before = try store.pool.withConnection { connection throws(PostgresError) in connection.statementsSent }
        let drawn = try store.drawTokens(
            limit: "account",
            [4, 1, 4, 4, 0].enumerated().map { LimitDraw(key: $0.offset == 1 ? second : first, count: $0.element) },
            perSecond: 0.001,
            burst: 10,
            now: Self.start
        )
        let after = try store.pool.withConnection { connection throws(PostgresError) in connection.statementsSent }
        #expect(drawn.map(\.taken) == [4, 1, 4, 2, 0], "ten of the first key's twelve, in order; one of the second's eight")
        #expect(drawn.map(\.left) == [0, 7, 0, 0, 0])
        #expect(after - before == 1)
        #expect(try store.drawTokens(limit: "account", [], perSecond: 1, burst: 10, now: Self.start).isEmpty)
    }

    /// Batches of the same keys in other orders, from ten stores at once, lock their rows in one order (no deadlock,
    /// which would fail a draw) and take each bucket's burst exactly.
    @Test func tenStoresDrawingBatchesOfTheSameKeysTakeEachBurstExactly() async throws {
        let database = try PostgresClusterScope.current().createDatabase()
        let stores = try (0..<10).map { _ in try Self.store(database) }
        let keys = (0..<5).map { [UInt8](repeating: UInt8($0), count: 32) }
        let taken = await withTaskGroup(of: [[UInt8]: Int]?.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    var taken: [[UInt8]: Int] = [:]
                    for round in 0..<12 {
                        let order = (index + round).isMultiple(of: 2) ? keys : keys.reversed()
                        guard
                            let drawn = try? store.drawTokens(
                                limit: "account",
                                order.map { LimitDraw(key: $0, count: 1) },
                                perSecond: 0.001,
                                burst: 40,
                                now: Self.start
                            )
                        else { return nil }
                        for (key, draw) in zip(order, drawn) { taken[key, default: 0] += draw.taken }
                    }
                    return taken
                }
            }
            var total: [[UInt8]: Int]? = [:]
            for await taken in group {
                guard let taken else {
                    total = nil
                    continue
                }
                for (key, count) in taken { total?[key, default: 0] += count }
            }
            return total
        }
        #expect(taken != nil, "no draw failed")
        #expect(taken.map { total in keys.map { total[$0] ?? 0 } } == Array(repeating: 40, count: 5))
    }

    /// Through a transaction-mode pooler (PgBouncer) two nodes draw from one bucket as directly: one statement each.
    @Test func twoNodesDrawThroughATransactionPooler() throws {
        let cluster = try PostgresClusterScope.current()
        let bouncer = try PgBouncer(inFrontOf: cluster, serverConnections: 1)
        defer { bouncer.destroy() }
        let database = bouncer.connectionString(database: try cluster.createDatabase())
        let nodes = try (0..<2).map { _ in try PostgresStore(connectionString: database, poolSize: 2, transactionPooling: true) }
        var taken = 0
        for round in 0..<8 {
            taken += try nodes[round % 2].drawTokens(limit: "account", key: Self.key, count: 2, perSecond: 0.001, burst: 10, now: Self.start).taken
        }
        #expect(taken == 10)
    }

    /// A draw's deadline counts from its asking for a connection: with every pooled connection held by other calls,
    /// it gives up within `limitDrawDeadline` (the limiter then decides alone), not after the pool's 10 s wait.
    @Test func aDrawOnABusyPoolIsOverWithinItsDeadline() throws {
        let store = try Self.store(try PostgresClusterScope.current().createDatabase())
        let (holding, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let held = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: held) {
                _ = try? store.transaction { _ throws(StorageError) in
                    holding.signal()
                    release.wait()
                }
            }
        }
        for _ in 0..<2 { holding.wait() }
        let started = ContinuousClock.now
        var failure: StorageError?
        do throws(StorageError) {
            _ = try store.drawTokens(limit: "account", key: Self.key, count: 1, perSecond: 1, burst: 10, now: Self.start)
        } catch {
            failure = error
        }
        let waited = started.duration(to: .now)
        for _ in 0..<2 { release.signal() }
        held.wait()
        #expect(failure?.code == .unavailable && failure?.outage == .timedOut, "\(String(describing: failure))")
        #expect(waited >= .milliseconds(900) && waited < .milliseconds(1500), "\(waited)")
        #expect(try store.drawTokens(limit: "account", key: Self.key, count: 1, perSecond: 1, burst: 10, now: Self.start) == (1, 9))
    }

    /// A draw commits lazily in one round trip, its `synchronous_commit` sent with it for its own transaction
    /// (before, on a connection with durable commits, three: `BEGIN` with `SET LOCAL`, the draw, `COMMIT`).
    @Test func aDrawIsOneRoundTripAndLeavesItsConnectionsCommitSettingAlone() throws {
        let cluster = try PostgresClusterScope.current()
        let drawing = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 1)
        func statements(_ body: () throws -> Void) throws -> Int {
            let before = try drawing.pool.withConnection { connection throws(PostgresError) in connection.statementsSent }
            try body()
            return try drawing.pool.withConnection { connection throws(PostgresError) in connection.statementsSent } - before
        }
        func draw() throws { _ = try drawing.drawTokens(limit: "account", key: Self.key, count: 1, perSecond: 1, burst: 10, now: Self.start) }
        try draw()
        #expect(try statements(draw) == 1, "the setting and the draw in one pipeline")
        let setting = try drawing.withConnection { connection throws(PostgresError) in
            try connection.run("SELECT current_setting('synchronous_commit')", []) { row throws(PostgresError) in row.text(0) }.first
        }
        #expect(setting == "on")
    }

    @Test func bucketsArePurgedOnceFull() throws {
        let store = try Self.store(try PostgresClusterScope.current().createDatabase())
        _ = try store.drawTokens(limit: "account", key: Self.key, count: 3, perSecond: 1, burst: 10, now: Self.start)
        _ = try store.drawTokens(limit: "account", key: [2], count: 2, perSecond: 1, burst: 10, now: Self.start + 2)
        #expect(try store.purgeFullLimitBuckets(now: Self.start + 2.5) == 0)
        #expect(try store.purgeFullLimitBuckets(now: Self.start + 3) == 1, "three tokens refill in three seconds")
        #expect(try store.drawTokens(limit: "account", key: Self.key, count: 10, perSecond: 1, burst: 10, now: Self.start + 3) == (10, 0))
        #expect(try store.purgeFullLimitBuckets(now: Self.start + 13) == 2)
    }
}
