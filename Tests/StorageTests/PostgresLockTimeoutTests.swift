import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// Issue 42: a call waiting for a lock ends by PostgreSQL's own `lock_timeout`, half a second before the client's
/// deadline, so that the backend stops waiting too. Without it the client gave up and closed its connection, and the
/// backend, which notices nothing while it waits, stayed in the lock's queue until the lock was released.
@Suite("PostgreSQL lock waits on a request's path", PostgresClusterScope())
struct PostgresLockTimeoutTests {
    /// One store call against `table` locked by another session: it fails `storage.unavailable` (the server's 503)
    /// within the call's `callTimeout`, and no backend still waits for a lock when it has.
    private func waitForLockedTable(
        _ table: String,
        through bouncer: PgBouncer? = nil,
        callTimeout: Duration = .seconds(2),
        warmUp: (PostgresStore) throws -> Void = { _ in },
        _ call: (PostgresStore) throws -> Void
    ) throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let direct = cluster.connectionString(database: name)
        let store = try PostgresStore(
            connectionString: bouncer?.connectionString(database: name) ?? direct,
            poolSize: 1,
            callTimeout: callTimeout,
            transactionPooling: bouncer != nil
        )
        defer { store.close() }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try warmUp(store)
        let holder = try PostgresConnection(connectionString: direct)
        try holder.execute("BEGIN; LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE")
        defer { holder.rollBack() }
        let started = ContinuousClock.now
        do {
            try call(store)
            Issue.record("a call went through a locked table")
        } catch let error as StorageError {
            #expect(error.code == .unavailable, "\(error)")
        }
        #expect(ContinuousClock.now - started < callTimeout + .milliseconds(500))
        let waiting = try cluster.psql(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(name)' AND wait_event_type = 'Lock'"
        )
        #expect(waiting.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "a backend still waits for the lock")
    }

    /// The sign-in's read, a single statement on a direct connection: the connection's bound.
    @Test func aSingleCallStopsWaitingOnTheServer() throws {
        try waitForLockedTable("credentials") { store in _ = try store.credential(id: StoreSamples.credential(1, owner: 1).id) }
    }

    /// Through a transaction pooler the sign-in's read is a function that carries its own bound, for the default call
    /// timeout. Called once before the table is locked, as on a node that has signed someone in: a first call would
    /// wait for the lock while the function is parsed, and pass whatever the function's bound were.
    @Test func aSignInReadThroughAPoolerStopsWaitingOnTheServer() throws {
        let bouncer = try PgBouncer(inFrontOf: try PostgresClusterScope.current())
        defer { bouncer.destroy() }
        let read = { (store: PostgresStore) throws in _ = try store.credential(id: StoreSamples.credential(1, owner: 1).id) }
        try waitForLockedTable("credentials", through: bouncer, callTimeout: PostgresStore.defaultCallTimeout, warmUp: read, read)
    }

    /// The functions' own `lock_timeout` (fixed texts of schema steps 24 to 28) is the pool's bound for the default call
    /// timeout, the only one the callers of the functions use: a change of either needs a step that sets it again.
    @Test func theFunctionsBoundIsTheDefaultCallsBound() {
        let bound = PostgresConnectionPool(connectionString: "", size: 1, waitTimeout: .seconds(1)).serverTimeoutMilliseconds
        let schema = PostgresMigrations.ceremonyFunctionsSchema
        #expect(schema.components(separatedBy: "SET lock_timeout = '\(bound)ms'").count - 1 == 3, "\(bound)")
        #expect(schema.components(separatedBy: "SET lock_timeout").count - 1 == 3)
        let signIn = PostgresMigrations.signInWriteSchema
        #expect(signIn.components(separatedBy: "passkeyd_complete_authentication SET lock_timeout = '\(bound)ms'").count - 1 == 1)
        #expect(signIn.components(separatedBy: "SET lock_timeout").count - 1 == 1)
        let expecting = PostgresMigrations.expectedSignInSchema
        #expect(expecting.components(separatedBy: "passkeyd_complete_authentication_expecting SET lock_timeout = '\(bound)ms'").count - 1 == 1)
        #expect(expecting.components(separatedBy: "SET lock_timeout").count - 1 == 1)
        let statements = PostgresMigrations.signInStatementsSchema
        #expect(statements.components(separatedBy: "passkeyd_complete_authentication_expecting SET lock_timeout = '\(bound)ms'").count - 1 == 1)
        #expect(statements.components(separatedBy: "SET lock_timeout").count - 1 == 1)
        let answer = PostgresMigrations.signInAnswerSchema
        #expect(answer.components(separatedBy: "passkeyd_sign_in SET lock_timeout = '\(bound)ms'").count - 1 == 1)
        #expect(answer.components(separatedBy: "passkeyd_credential SET lock_timeout = '\(bound)ms'").count - 1 == 1)
        #expect(answer.components(separatedBy: "SET lock_timeout").count - 1 == 2)
    }

    /// 3 s: longer than the wait for the transaction's fairness lock (2 s), so that its bound is the one met.
    @Test func aTransactionStopsWaitingOnTheServer() throws {
        try waitForLockedTable("users", callTimeout: .seconds(3)) { store in
            _ = try store.transaction { transaction throws(StorageError) in try transaction.user(id: StoreSamples.userID(1)) }
        }
    }

    /// Through a transaction pooler the connection's setting is not ours: the sign-in's function carries its own, for
    /// the default call timeout.
    @Test func aSignInThroughAPoolerStopsWaitingOnTheServer() throws {
        let bouncer = try PgBouncer(inFrontOf: try PostgresClusterScope.current())
        defer { bouncer.destroy() }
        try waitForLockedTable("credentials", through: bouncer, callTimeout: PostgresStore.defaultCallTimeout) { store in
            _ = try store.completeAuthentication(
                StoreSamples.signIn(owner: 1, signCount: 9),
                session: StoreSamples.session(1, owner: 1),
                events: [],
                spending: nil,
                expecting: StoreSamples.expecting(1, owner: 1)
            )
        }
    }
}
