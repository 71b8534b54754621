import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// Schema step 25 (issue 42): the sign-in's final write leaves the webhook deliveries out of its statement when no
/// endpoint is subscribed, so that PostgreSQL does not set up their insert, its sort, window and join and open the
/// deliveries' four indexes on every sign-in. Seen from outside: a sign-in goes through while another session holds
/// `webhook_deliveries` locked, which the statement of step 24 waited for until its `lock_timeout`.
@Suite("PostgreSQL sign-in write", PostgresClusterScope())
struct PostgresSignInWriteTests {
    @Test func aSignInWithoutEndpointsLeavesTheDeliveriesAlone() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: name), poolSize: 1)
        defer { store.close() }
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 5
        try store.seedUser(StoreSamples.user(1), credential: credential)
        let holder = try PostgresConnection(connectionString: cluster.connectionString(database: name))
        try holder.execute("BEGIN; LOCK TABLE webhook_deliveries IN ACCESS EXCLUSIVE MODE")
        defer { holder.rollBack() }
        let started = ContinuousClock.now
        _ = try store.completeAuthentication(
            StoreSamples.signIn(owner: 1, signCount: 9),
            session: StoreSamples.session(1, owner: 1),
            events: [StoreSamples.event(1, owner: 1, type: "session.created")],
            spending: nil,
            expecting: SignInExpectation(credential)
        )
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(try store.allEvents().map(\.type) == ["session.created"])
    }
}
