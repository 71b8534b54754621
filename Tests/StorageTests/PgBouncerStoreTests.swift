import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// Issue 42: the store through a transaction-mode pooler (Debian's PgBouncer, `pool_mode = transaction`), where each
/// transaction may run on another server connection. With `transactionPooling` the whole store contract holds and
/// two nodes share the database; without it, a second store met the first one's named prepared statement and could
/// not even start (`prepared statement "passkeyd_1" already exists`), as the outside fault test found.
@Suite("PostgreSQL store through PgBouncer", PostgresClusterScope())
struct PgBouncerStoreTests {
    @Test(arguments: StoreContract.checks)
    func contract(check: StoreContractCheck) throws {
        let cluster = try PostgresClusterScope.current()
        let bouncer = try PgBouncer(inFrontOf: cluster)
        defer { bouncer.destroy() }
        try check.run {
            try PostgresStore(
                connectionString: bouncer.connectionString(database: try cluster.createDatabase()),
                poolSize: 20,
                transactionPooling: true
            )
        }
    }

    /// The failure that made the option: named prepared statements are a session's, and PgBouncer hands the second
    /// store the first one's server connection (one server connection, so always the same one).
    @Test func namedPreparedStatementsBreakThroughATransactionPooler() throws {
        let cluster = try PostgresClusterScope.current()
        let bouncer = try PgBouncer(inFrontOf: cluster, serverConnections: 1)
        defer { bouncer.destroy() }
        let database = bouncer.connectionString(database: try cluster.createDatabase())
        let first = try PostgresStore(connectionString: database, poolSize: 1)
        try first.insertChallenge(StoreSamples.challenge(1))
        #expect(throws: StorageError.self) {
            let second = try PostgresStore(connectionString: database, poolSize: 1)
            try second.insertChallenge(StoreSamples.challenge(2))
        }
        let pooled = try PostgresStore(connectionString: database, poolSize: 1, transactionPooling: true)
        try pooled.insertChallenge(StoreSamples.challenge(3))
        #expect(try pooled.takeChallenge(StoreSamples.challenge(3).challenge, now: StoreSamples.now) == .valid(StoreSamples.challenge(3)))
    }

    /// Two nodes through one pooler with 6 server connections: a challenge is taken once of 16 tries, and concurrent
    /// transactions on one account (retried on serialization failures, with no lock held across them) all commit.
    @Test func twoNodesShareTheDatabaseThroughThePooler() throws {
        let cluster = try PostgresClusterScope.current()
        let bouncer = try PgBouncer(inFrontOf: cluster)
        defer { bouncer.destroy() }
        let database = bouncer.connectionString(database: try cluster.createDatabase())
        let nodes = [
            try PostgresStore(connectionString: database, poolSize: 8, transactionPooling: true),
            try PostgresStore(connectionString: database, poolSize: 8, transactionPooling: true),
        ]
        for round: UInt8 in 1...5 {
            let challenge = StoreSamples.challenge(round)
            try nodes[Int(round) % 2].insertChallenge(challenge)
            let outcomes = StoreContract.takeConcurrently(challenge.challenge, threads: 16) { nodes[$0 % 2] }
            #expect(outcomes.valid == 1 && outcomes.unknown == 15 && outcomes.failures.isEmpty, "round \(round)")
        }
    }

    /// A destroyed PgBouncer is gone, whatever signals the test's thread blocks: a child inherits its spawner's signal
    /// mask, and a PgBouncer started with `SIGTERM` blocked ignored the one that stops it and outlived the test run.
    @Test func aDestroyedPoolerIsStoppedEvenWhenItsStarterBlocksSignals() throws {
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let bouncer: PgBouncer
        do {
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            bouncer = try PgBouncer(inFrontOf: try PostgresClusterScope.current())
        }
        let pid = try #require(bouncer.processID)
        bouncer.destroy()
        let stopped = !PgBouncer.isRunning(pid)
        if !stopped { kill(pid, SIGKILL) }
        #expect(stopped, "PgBouncer \(pid) is still running after destroy()")
    }
}
