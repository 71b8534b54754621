import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// Issue 42: the calls that commit without waiting for the WAL flush (the challenge writes, a session's last use, the
/// outbox workers' and shared limits' bookkeeping) say so for their own transaction, in the round trip of their
/// statement, instead of switching the connection's `synchronous_commit` back and forth, where each `SET` was a
/// transaction of its own (10 + 10 a minute of ten idle nodes' 2.3 a second) and a pooler's connections could not take
/// it at all.
@Suite("PostgreSQL commits without the WAL flush", PostgresClusterScope())
struct PostgresDurabilityTests {
    /// `synchronous_commit` as a call sees it, in its statement, and in a transaction of it.
    private static func setting(_ store: PostgresStore, deferring: Bool, inTransaction: Bool = false) throws -> String {
        let read = { (connection: PostgresConnection) throws(PostgresError) -> String in
            let statement = { () throws(PostgresError) -> String in
                try connection.run("SELECT current_setting('synchronous_commit')", []) { row throws(PostgresError) in row.text(0) }.first ?? ""
            }
            return inTransaction ? try connection.transaction(statement) : try statement()
        }
        return deferring ? try store.withConnectionDeferringDurability(read) : try store.withConnection(read)
    }

    /// The transactions PostgreSQL counted in `database`, the store's connection's own included: the connection (the
    /// pool's only one) reports its counts before it answers `pg_stat_force_next_flush()`, itself one transaction.
    private static func transactions(_ store: PostgresStore, in database: String) throws -> Int64 {
        try store.withConnection { connection throws(PostgresError) in try connection.execute("SELECT pg_stat_force_next_flush()") }
        let reader = try PostgresConnection(connectionString: try PostgresClusterScope.current().connectionString())
        return try reader.run("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1", [.text(database)]) {
            row throws(PostgresError) in try row.integer(0)
        }.first ?? 0
    }

    @Test func deferredCallsAreOneTransactionAndOneRoundTripEach() throws {
        let database = try PostgresClusterScope.current().createDatabase()
        let store = try PostgresStore(connectionString: try PostgresClusterScope.current().connectionString(database: database), poolSize: 1)
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        func roundTrips() throws -> Int { try store.pool.withConnection { connection throws(PostgresError) in connection.statementsSent } }
        // The first round prepares the statements.
        try store.insertChallenge(StoreSamples.challenge(1))
        _ = try store.user(id: StoreSamples.userID(1))
        _ = try store.drawTokens(limit: "account", key: [1], count: 1, perSecond: 1, burst: 10, now: StoreSamples.now)
        let before = (try Self.transactions(store, in: database), try roundTrips())
        for number: UInt8 in 2...6 {
            try store.insertChallenge(StoreSamples.challenge(number))
            _ = try store.user(id: StoreSamples.userID(1))
            _ = try store.drawTokens(limit: "account", key: [number], count: 1, perSecond: 1, burst: 10, now: StoreSamples.now)
        }
        let after = (try Self.transactions(store, in: database), try roundTrips())
        // Five times three calls, and the count's own flush. Before: a `SET` each time the setting changed, and the
        // draw's `BEGIN` and `COMMIT` (26 transactions, 36 round trips).
        #expect(after.0 - before.0 == 16)
        #expect(after.1 - before.1 == 16, "one round trip a call, and the flush's")
    }

    @Test func aDeferredCallSkipsTheFlushAndLeavesTheSessionAlone() throws {
        let cluster = try PostgresClusterScope.current()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 1)
        #expect(try Self.setting(store, deferring: false) == "on")
        #expect(try Self.setting(store, deferring: true) == "off")
        #expect(try Self.setting(store, deferring: false) == "on", "the setting ended with the deferred call's transaction")
        #expect(try Self.setting(store, deferring: true, inTransaction: true) == "off")
        #expect(try Self.setting(store, deferring: false, inTransaction: true) == "on")
        let session = try store.pool.withConnection { connection throws(PostgresError) in
            try connection.execute("SET synchronous_commit TO remote_write")
            return try connection.run("SELECT current_setting('synchronous_commit')", []) { row throws(PostgresError) in row.text(0) }.first
        }
        #expect(session == "remote_write")
        #expect(try Self.setting(store, deferring: true) == "off")
        #expect(try Self.setting(store, deferring: false) == "remote_write", "a deferred call never changes the session's setting")
    }

    /// A failing deferred statement fails as alone, and the connection serves the next call.
    @Test func aFailedDeferredStatementLeavesTheConnectionUsable() throws {
        let cluster = try PostgresClusterScope.current()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 1)
        try store.insertChallenge(StoreSamples.challenge(1))
        #expect(throws: StorageError.self) { try store.insertChallenge(StoreSamples.challenge(1)) }
        #expect(try store.takeChallenge(StoreSamples.challenge(1).challenge, now: StoreSamples.now) == .valid(StoreSamples.challenge(1)))
        #expect(try Self.setting(store, deferring: false) == "on")
    }

    /// Through a transaction-mode pooler the setting is the transaction's, so it is safe there: before, every commit
    /// there waited for the flush, since a session's `SET` would have reached other clients' transactions.
    @Test func throughATransactionPoolerTooAndOnlyForTheCall() throws {
        let cluster = try PostgresClusterScope.current()
        let bouncer = try PgBouncer(inFrontOf: cluster, serverConnections: 1)
        defer { bouncer.destroy() }
        let database = bouncer.connectionString(database: try cluster.createDatabase())
        let deferring = try PostgresStore(connectionString: database, poolSize: 1, transactionPooling: true)
        let other = try PostgresStore(connectionString: database, poolSize: 1, transactionPooling: true)
        #expect(try Self.setting(deferring, deferring: true) == "off")
        #expect(try Self.setting(other, deferring: false) == "on", "the one server connection, another client")
        #expect(try Self.setting(deferring, deferring: true, inTransaction: true) == "off")
        #expect(try Self.setting(other, deferring: false) == "on")
        try deferring.insertChallenge(StoreSamples.challenge(1))
        #expect(try other.takeChallenge(StoreSamples.challenge(1).challenge, now: StoreSamples.now) == .valid(StoreSamples.challenge(1)))
    }
}
