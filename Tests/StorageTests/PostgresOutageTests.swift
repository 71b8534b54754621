import Foundation
import Storage
import StoragePostgres
import TestSupport
import Testing

/// The database going away and coming back, on a cluster of the test's own, since it is stopped on purpose.
@Suite("PostgreSQL outages")
struct PostgresOutageTests {
    @Test func callsFailWithUnavailableWhileTheServerIsDownAndRecoverAfter() throws {
        let cluster = try PostgresCluster()
        defer { cluster.destroy() }
        let store = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 4)
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))

        try cluster.stop()
        let started = Date()
        for number: UInt8 in 2...4 {
            do {
                try store.seedUser(StoreSamples.user(number), credential: StoreSamples.credential(number, owner: number))
                Issue.record("a write succeeded with the database down")
            } catch {
                #expect(error.code == .unavailable)
                #expect(error.outage == .unreachable, "\(error)")
            }
        }
        #expect(throws: StorageError.self) { try store.user(id: StoreSamples.userID(1)) }
        #expect(Date().timeIntervalSince(started) < 10, "a refused connection must fail fast")

        try cluster.start()
        #expect(try eventually { try store.user(id: StoreSamples.userID(1)) } == StoreSamples.user(1))
        // A restart while connections sit idle costs no call: the pool notices they were closed.
        try cluster.stop()
        try cluster.start()
        #expect(try store.user(id: StoreSamples.userID(1)) == StoreSamples.user(1))
        // Nothing refused during the outage was stored.
        #expect(try store.user(id: StoreSamples.userID(2)) == nil)
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
    }

    @Test func committedWritesSurviveACrashOfTheServer() throws {
        let cluster = try PostgresCluster()
        defer { cluster.destroy() }
        let store = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 2)
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 6
        try store.seedUser(StoreSamples.user(1), credential: credential)
        _ = try store.completeAuthentication(
            StoreSamples.signIn(owner: 1, signCount: 7),
            session: StoreSamples.session(1, owner: 1),
            events: [],
            spending: nil,
            expecting: SignInExpectation(credential)
        )
        try cluster.stop(immediately: true)
        try cluster.start()
        let recovered = try store.credential(id: StoreSamples.credential(1, owner: 1).id)
        #expect(recovered?.signCount == 7)
        #expect(try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: StoreSamples.now) != nil)
    }

    /// Retries `body` for up to 10 s while it throws `storage.unavailable`: the first calls after a restart may meet
    /// pooled connections the old server closed.
    private func eventually<Value>(_ body: () throws -> Value) throws -> Value {
        let deadline = Date().addingTimeInterval(10)
        while true {
            do {
                return try body()
            } catch let error as StorageError where error.code == .unavailable && Date() < deadline {
                usleep(100_000)
            }
        }
    }
}
