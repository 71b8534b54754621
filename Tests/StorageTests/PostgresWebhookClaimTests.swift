import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// Issue 42: a webhook claim leases its rows and reads their events in one statement. Before, the lease was committed
/// first and each event read after it by a statement of its own: a claim that ran out of time part way returned
/// nothing to the worker and left the rows leased, so their delivery waited for the lease to end.
@Suite("PostgreSQL webhook claims", PostgresClusterScope())
struct PostgresWebhookClaimTests {
    @Test func aClaimThatRunsOutOfTimeLeasesNothing() throws {
        let cluster = try PostgresClusterScope.current()
        let database = cluster.connectionString(database: try cluster.createDatabase())
        let store = try PostgresStore(connectionString: database, poolSize: 1, callTimeout: .seconds(1))
        defer { store.close() }
        _ = try store.transaction { transaction throws(StorageError) in
            try transaction.configureWebhookSubscriptions(
                [WebhookSubscription(endpointID: "ep", eventTypes: nil)],
                removalReason: "webhook.endpointRemoved",
                now: StoreSamples.now
            )
        }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let events = try store.transaction { transaction throws(StorageError) in
            [try transaction.appendEvent(StoreSamples.event(1, owner: 1)), try transaction.appendEvent(StoreSamples.event(2, owner: 2))]
        }
        let at = { (offset: TimeInterval) in StoreSamples.now.addingTimeInterval(offset) }
        func claim(_ offset: TimeInterval) throws -> [ClaimedWebhookDelivery] {
            try store.claimWebhookDeliveries(endpointID: "ep", owner: "worker", now: at(offset), leaseUntil: at(offset + 30), limit: 10)
        }

        // Another session holds the events table: the claim cannot read the events and gives up by its deadline.
        let holder = try PostgresConnection(connectionString: database)
        try holder.execute("BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
        do {
            let claimed = try claim(100)
            Issue.record("a claim read the events of a locked table: \(claimed.count) deliveries")
        } catch let error as StorageError {
            #expect(error.code == .unavailable, "\(error)")
        }
        holder.rollBack()

        let leased = try store.webhookDeliveries(status: .pending, after: 0, limit: 10)
        #expect(leased.map(\.leaseOwner) == [nil, nil], "the failed claim leased no delivery")
        // Well before the failed claim's lease (130) would have ended, the deliveries are claimed, in event order.
        let claimed = try claim(101)
        #expect(claimed.map(\.event.id) == events)
        #expect(claimed.map(\.delivery.eventID) == events)
        #expect(claimed.allSatisfy { $0.delivery.leaseOwner == "worker" && $0.delivery.leaseUntil == at(131) })
    }
}
