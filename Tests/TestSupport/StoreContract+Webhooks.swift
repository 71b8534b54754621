import Dispatch
import Foundation
import Storage
import Synchronization

/// The clauses of the store contract for webhook deliveries (`WebhookDeliveryStore`, the webhook operations of
/// `StoreTransaction`, deliveries created by `appendEvent`).
extension StoreContract {
    static let webhookChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "appendEvent queues a delivery per subscribed endpoint", run: deliveriesFollowSubscriptions),
        StoreContractCheck(name: "a user's deliveries to an endpoint are claimed in event order", run: deliveriesAreClaimedInOrder),
        StoreContractCheck(name: "claims are leases held by one owner", run: claimsAreLeases),
        StoreContractCheck(name: "outcomes: retry, dead, released, and only by the owner", run: outcomesAreRecorded),
        StoreContractCheck(name: "removed endpoints' deliveries die; dead ones can be retried", run: removalAndRetry),
        StoreContractCheck(name: "purgeEvents keeps undelivered events", run: purgeKeepsUndelivered),
        StoreContractCheck(name: "repairWebhookChains makes an orphaned delivery due", run: orphanedChainsAreRepaired),
        StoreContractCheck(name: "ceremonies queue their events' deliveries", run: ceremoniesQueueDeliveries),
        StoreContractCheck(name: "a sign-in queues its events' deliveries behind the user's pending one", run: signInsQueueDeliveries),
        StoreContractCheck(name: "8 threads claiming: each delivery to one of them", run: concurrentClaimsAreExclusive),
    ]

    static let everything = WebhookSubscription(endpointID: "ep_all", eventTypes: nil)
    static let renamesOnly = WebhookSubscription(endpointID: "ep-renames", eventTypes: ["passkey.renamed"])

    /// Appends `events` in one transaction; returns their IDs.
    @discardableResult
    static func append(_ store: any PasskeyStore, _ events: [NewEvent]) throws(StorageError) -> [Int64] {
        try store.transaction { transaction throws(StorageError) -> [Int64] in
            var ids: [Int64] = []
            for event in events { ids.append(try transaction.appendEvent(event)) }
            return ids
        }
    }

    static func subscribe(_ store: any PasskeyStore, _ subscriptions: [WebhookSubscription]) throws(StorageError) {
        _ = try store.transaction { transaction throws(StorageError) in
            try transaction.configureWebhookSubscriptions(subscriptions, removalReason: "webhook.endpointRemoved", now: StoreSamples.now)
        }
    }

    static func claim(
        _ store: any PasskeyStore,
        _ endpoint: String,
        owner: String = "worker-1",
        at offset: TimeInterval = 100,
        limit: Int = 10
    )
        throws(StorageError) -> [ClaimedWebhookDelivery]
    {
        let now = StoreSamples.now.addingTimeInterval(offset)
        return try store.claimWebhookDeliveries(endpointID: endpoint, owner: owner, now: now, leaseUntil: now.addingTimeInterval(30), limit: limit)
    }

    static func record(
        _ store: any PasskeyStore,
        _ id: Int64,
        _ outcome: WebhookDeliveryOutcome,
        owner: String = "worker-1",
        at offset: TimeInterval = 101
    )
        throws(StorageError)
    {
        try store.recordWebhookOutcomes([(id, outcome)], owner: owner, now: StoreSamples.now.addingTimeInterval(offset))
    }

    public static func deliveriesFollowSubscriptions(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try append(store, [StoreSamples.event(1, owner: 1)])
        try expectEqual(try store.webhookDeliveries(status: nil, after: 0, limit: 10), [], "no subscription, no delivery")
        try subscribe(store, [everything, renamesOnly])
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.webhookSubscriptions() },
            [renamesOnly, everything],
            "the subscriptions, by endpoint ID"
        )
        let ids = try append(
            store,
            [StoreSamples.event(2, owner: 1), StoreSamples.event(3, owner: 2, type: "user.deleted"), StoreSamples.event(4, owner: nil)]
        )
        let deliveries = try store.webhookDeliveries(status: nil, after: 0, limit: 10)
        try expectEqual(
            deliveries.map { "\($0.eventID) \($0.endpointID)" },
            ["\(ids[0]) ep-renames", "\(ids[0]) ep_all", "\(ids[1]) ep_all", "\(ids[2]) ep-renames", "\(ids[2]) ep_all"],
            "one delivery per event and subscribed endpoint, in creation order"
        )
        let first = deliveries[0]
        try expectEqual(first.status, .pending, "pending")
        try expectEqual(first.userID, StoreSamples.userID(1), "the event's user")
        try expectEqual(first.attempts, 0, "no attempt")
        try expectEqual(first.queuedAt, StoreSamples.event(2, owner: 1).occurredAt, "queued at the event's time")
        try expectEqual(first.nextAttemptAt, first.queuedAt, "due at once")
        try expectEqual(first.leaseOwner, nil, "not leased")
        try expectEqual(try store.webhookDeliveries(status: .dead, after: 0, limit: 10), [], "by status")
        try expectEqual(try store.webhookDeliveries(status: nil, after: deliveries[3].id, limit: 10), [deliveries[4]], "after")
        try expectEqual(
            Set(try store.webhookDeliveryCounts()),
            [
                WebhookDeliveryCount(endpointID: "ep_all", status: .pending, count: 3),
                WebhookDeliveryCount(endpointID: "ep-renames", status: .pending, count: 2),
            ],
            "counts"
        )
        try expectStorageError(.invalidRecord, "an endpoint ID with a dot") { () throws(StorageError) in
            try subscribe(store, [WebhookSubscription(endpointID: "ep.1", eventTypes: nil)])
        }
    }

    public static func deliveriesAreClaimedInOrder(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try subscribe(store, [everything])
        let ids = try append(store, [StoreSamples.event(1, owner: 1), StoreSamples.event(2, owner: 1), StoreSamples.event(3, owner: 2)])
        try append(store, [StoreSamples.event(4, owner: 1)])
        let waiting = try store.webhookDeliveries(status: nil, after: 0, limit: 10)
        try expectEqual(waiting.map { $0.nextAttemptAt == nil }, [false, true, false, true], "a user's later deliveries wait")
        let claimed = try claim(store, "ep_all")
        try expectEqual(claimed.map(\.event.id), [ids[0], ids[2]], "the first of each user")
        try expectEqual(claimed[0].event, EventRecord(id: ids[0], StoreSamples.event(1, owner: 1)), "with its event")
        try expectEqual(claimed[0].delivery.leaseOwner, "worker-1", "leased")
        try expectEqual(try claim(store, "ep_all", owner: "worker-2"), [], "nothing else is due")
        try record(store, claimed[1].delivery.id, .delivered(status: 200), at: 101)
        // A failed first delivery keeps the user's next waiting; a delivered one makes it due.
        try record(
            store,
            claimed[0].delivery.id,
            .retry(nextAttemptAt: StoreSamples.now.addingTimeInterval(200), status: 500, error: "webhook.unexpectedStatus")
        )
        try expectEqual(try claim(store, "ep_all", at: 150), [], "the retry is not due yet and the next waits")
        try expectEqual(try claim(store, "ep_all", at: 200).map(\.event.id), [ids[0]], "the retry when due")
        try record(store, claimed[0].delivery.id, .delivered(status: 204), at: 201)
        try expectEqual(try claim(store, "ep_all", at: 202).map(\.event.id), [ids[1]], "then the user's second")
        try expectEqual(try claim(store, "ep_all", at: 203), [], "its third waits for it")
        let done = try store.transaction { transaction throws(StorageError) in try transaction.webhookDelivery(id: claimed[0].delivery.id) }
        try expectEqual(done?.status, .delivered, "delivered")
        try expectEqual(done?.attempts, 2, "two attempts")
        try expectEqual(done?.lastStatus, 204, "the last status")
        try expectEqual(done?.lastError, nil, "no error after a success")
        try expectEqual(done?.nextAttemptAt, nil, "nothing more to do")
        try expectEqual(done?.lastAttemptAt, StoreSamples.now.addingTimeInterval(201), "the attempt's time")
    }

    public static func claimsAreLeases(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try subscribe(store, [everything])
        try append(store, [StoreSamples.event(1, owner: 1)])
        let first = try claim(store, "ep_all", at: 100)
        try expectEqual(first.count, 1, "claimed")
        try expectEqual(try claim(store, "ep_all", owner: "worker-2", at: 129), [], "held until the lease ends")
        let taken = try claim(store, "ep_all", owner: "worker-2", at: 130)
        try expectEqual(taken.map(\.delivery.id), first.map(\.delivery.id), "taken over when the lease ended")
        // The first owner's late outcome is ignored: the second owner holds it now.
        try record(store, first[0].delivery.id, .delivered(status: 200), owner: "worker-1", at: 131)
        let stillPending = try store.transaction { transaction throws(StorageError) in try transaction.webhookDelivery(id: first[0].delivery.id) }
        try expectEqual(stillPending?.status, .pending, "a former owner's outcome changes nothing")
        try record(store, first[0].delivery.id, .delivered(status: 200), owner: "worker-2", at: 132)
        try expectEqual(try store.webhookDeliveries(status: .delivered, after: 0, limit: 10).count, 1, "the owner's outcome")
        try expectEqual(try claim(store, "ep-other"), [], "another endpoint has nothing")
    }

    public static func outcomesAreRecorded(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try subscribe(store, [everything])
        let ids = try append(store, [StoreSamples.event(1, owner: 1), StoreSamples.event(2, owner: 1), StoreSamples.event(3, owner: 2)])
        var claimed = try claim(store, "ep_all")
        try record(store, claimed[1].delivery.id, .released)
        let released = try store.transaction { transaction throws(StorageError) in try transaction.webhookDelivery(id: claimed[1].delivery.id) }
        try expectEqual(released?.leaseOwner, nil, "released")
        try expectEqual(released?.attempts, 0, "a release is no attempt")
        try expectEqual(try claim(store, "ep_all", at: 102).map(\.event.id), [ids[2]], "claimable again at once")
        try record(store, claimed[0].delivery.id, .dead(status: 410, error: "webhook.gone"))
        let dead = try store.transaction { transaction throws(StorageError) in try transaction.webhookDelivery(id: claimed[0].delivery.id) }
        try expectEqual(dead?.status, .dead, "dead")
        try expectEqual(dead?.lastStatus, 410, "its status")
        try expectEqual(dead?.lastError, "webhook.gone", "its error")
        claimed = try claim(store, "ep_all", at: 103)
        try expectEqual(claimed.map(\.event.id), [ids[1]], "a dead delivery lets the next of its chain go")
        try record(
            store,
            claimed[0].delivery.id,
            .retry(nextAttemptAt: StoreSamples.now.addingTimeInterval(500), status: nil, error: "http.clientTimeout")
        )
        let retried = try store.transaction { transaction throws(StorageError) in try transaction.webhookDelivery(id: claimed[0].delivery.id) }
        try expectEqual(retried?.attempts, 1, "one attempt")
        try expectEqual(retried?.lastStatus, nil, "no reply")
        try expectEqual(retried?.lastError, "http.clientTimeout", "the failure")
        try expectEqual(retried?.nextAttemptAt, StoreSamples.now.addingTimeInterval(500), "the next attempt")
        try expectEqual(retried?.leaseOwner, nil, "not leased")
    }

    public static func removalAndRetry(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try subscribe(store, [everything, renamesOnly])
        try append(store, [StoreSamples.event(1, owner: 1), StoreSamples.event(2, owner: 1)])
        let removed = try store.transaction { transaction throws(StorageError) in
            try transaction.configureWebhookSubscriptions([everything], removalReason: "webhook.endpointRemoved", now: StoreSamples.now)
        }
        try expectEqual(removed.map(\.endpointID), ["ep-renames"], "the endpoint no longer configured")
        try expectEqual(removed.map(\.abandoned), [2], "its pending deliveries")
        let dead = try store.webhookDeliveries(status: .dead, after: 0, limit: 10)
        try expectEqual(dead.map(\.endpointID), ["ep-renames", "ep-renames"], "die")
        try expectEqual(dead.map(\.lastError), ["webhook.endpointRemoved", "webhook.endpointRemoved"], "with the reason")
        try append(store, [StoreSamples.event(3, owner: 1)])
        try expectEqual(
            try store.webhookDeliveries(status: nil, after: 0, limit: 10).filter { $0.endpointID == "ep-renames" }.count,
            2,
            "no new ones"
        )
        let requeued = try store.transaction { transaction throws(StorageError) in
            try transaction.retryWebhookDelivery(id: dead[0].id, now: StoreSamples.now.addingTimeInterval(50))
        }
        try expect(requeued, "a dead delivery is queued again")
        let again = try store.transaction { transaction throws(StorageError) in try transaction.webhookDelivery(id: dead[0].id) }
        try expectEqual(again?.status, .pending, "pending")
        try expectEqual(again?.queuedAt, StoreSamples.now.addingTimeInterval(50), "a new horizon")
        try expectEqual(again?.attempts, 0, "attempts from zero")
        try expectEqual(try claim(store, "ep-renames").map(\.delivery.id), [dead[0].id], "and claimable")
        try expect(
            !(try store.transaction { transaction throws(StorageError) in try transaction.retryWebhookDelivery(id: dead[0].id, now: StoreSamples.now)
            }),
            "a pending delivery is not dead"
        )
        try expect(
            !(try store.transaction { transaction throws(StorageError) in try transaction.retryWebhookDelivery(id: 999_999, now: StoreSamples.now) }),
            "an unknown delivery"
        )
    }

    public static func purgeKeepsUndelivered(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try subscribe(store, [everything])
        let ids = try append(store, [StoreSamples.event(1, owner: 1), StoreSamples.event(2, owner: 2), StoreSamples.event(3, owner: 3)])
        let claimed = try claim(store, "ep_all")
        try record(store, claimed[0].delivery.id, .delivered(status: 200), at: 101)
        try record(store, claimed[1].delivery.id, .dead(status: 500, error: "webhook.unexpectedStatus"), at: 101)
        let cutoff = StoreSamples.now.addingTimeInterval(50)
        try expectEqual(try store.purgeEvents(occurredBefore: cutoff), 1, "the delivered event only")
        try expectEqual(try store.allEvents().map(\.id), [ids[1], ids[2]], "the dead (died after the cutoff) and the pending stay")
        try expectEqual(
            try store.webhookDeliveries(status: nil, after: 0, limit: 10).map(\.eventID),
            [ids[1], ids[2]],
            "deliveries go with their event"
        )
        try expectEqual(
            try store.purgeEvents(occurredBefore: StoreSamples.now.addingTimeInterval(101.5)),
            1,
            "a dead delivery older than the cutoff goes"
        )
        try expectEqual(try store.allEvents().map(\.id), [ids[2]], "the pending one stays")
    }

    public static func orphanedChainsAreRepaired(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try subscribe(store, [everything])
        let ids = try append(store, [StoreSamples.event(1, owner: 1), StoreSamples.event(2, owner: 1)])
        try expectEqual(
            try store.repairWebhookChains(queuedSince: .distantPast, now: StoreSamples.now),
            0,
            "a waiting delivery with a pending head is no orphan"
        )
        let claimed = try claim(store, "ep_all")
        try expectEqual(claimed.map(\.event.id), [ids[0]], "the head")
        // The head is removed as it would be by a concurrent completion the appender did not see (simulated by
        // deleting the head's event): its follower waits for nothing.
        try expectEqual(try store.purgeEvents(occurredBefore: .distantFuture), 0, "nothing is purged while pending")
        try record(store, claimed[0].delivery.id, .dead(status: nil, error: "x"), at: 101)
        try expectEqual(try store.repairWebhookChains(queuedSince: .distantPast, now: StoreSamples.now), 0, "completion made the next due already")
        try expectEqual(try claim(store, "ep_all", at: 102).map(\.event.id), [ids[1]], "the follower")
    }

    public static func ceremoniesQueueDeliveries(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try subscribe(store, [everything, renamesOnly])
        let user = StoreSamples.user(1)
        let credential = StoreSamples.credential(1, owner: 1)
        let session = SessionRecord(
            tokenHash: [UInt8](repeating: 0x51, count: 32),
            id: [UInt8](repeating: 0x52, count: 16),
            userID: user.id,
            method: .passkey,
            credentialID: credential.id,
            userVerified: true,
            createdAt: StoreSamples.now,
            expiresAt: StoreSamples.now.addingTimeInterval(60)
        )
        let events = [StoreSamples.event(1, owner: 1, type: "user.created"), StoreSamples.event(2, owner: 1), StoreSamples.event(3, owner: 1)]
        try store.completeRegistration(newUser: user, credential: credential, session: session, events: events)
        let deliveries = try store.webhookDeliveries(status: nil, after: 0, limit: 10)
        try expectEqual(deliveries.filter { $0.endpointID == "ep_all" }.count, 3, "every event to the endpoint of every type")
        try expectEqual(deliveries.filter { $0.endpointID == "ep-renames" }.count, 2, "the renames to the other")
        // However the driver marks the chain, only the first event is claimed, then the next.
        var order: [Int64] = []
        for step in 0..<4 {
            let claimed = try claim(store, "ep_all", at: 100 + Double(step) * 2)
            try expect(claimed.count <= 1, "one at a time for one user: \(claimed.map(\.event.id))")
            for item in claimed {
                order.append(item.event.id)
                try record(store, item.delivery.id, .delivered(status: 200), at: 101 + Double(step) * 2)
            }
        }
        try expectEqual(order, try store.allEvents().map(\.id), "in event order")
    }

    /// A sign-in's events get a delivery per subscribed endpoint of their type, in event order; for a user with a
    /// delivery pending at an endpoint they wait behind it (not due), at an endpoint with none the first is due.
    public static func signInsQueueDeliveries(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 5
        try store.seedUser(StoreSamples.user(1), credential: credential)
        try subscribe(store, [everything, renamesOnly])
        let pending = try append(store, [StoreSamples.event(1, owner: 1, type: "user.updated")])
        let events = [StoreSamples.event(2, owner: 1, type: "session.created"), StoreSamples.event(3, owner: 1)]
        let (update, session) = (StoreSamples.signIn(owner: 1, signCount: 9), StoreSamples.session(1, owner: 1))
        _ = try store.completeAuthentication(update, session: session, events: events, spending: nil, expecting: SignInExpectation(credential))
        let ids = try store.allEvents().map(\.id)
        try expectEqual(ids.count, 3, "the sign-in's events appended")
        let deliveries = try store.webhookDeliveries(status: nil, after: 0, limit: 10)
        try expectEqual(deliveries.filter { $0.endpointID == "ep_all" }.map(\.eventID), ids, "every event to the endpoint of every type")
        try expectEqual(deliveries.filter { $0.endpointID == "ep-renames" }.map(\.eventID), [ids[2]], "the rename to the other")
        try expectEqual(pending, [ids[0]], "the event before the sign-in")
        try expectEqual(try claim(store, "ep_all").map(\.event.id), [ids[0]], "behind the pending delivery")
        try expectEqual(try claim(store, "ep-renames", owner: "worker-2").map(\.event.id), [ids[2]], "the first of its chain: due")
    }

    public static func concurrentClaimsAreExclusive(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try subscribe(store, [everything])
        try append(store, (1...40).map { StoreSamples.event($0, owner: UInt8($0)) })
        let claimedIDs = Mutex<[Int64]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<10 {
                do throws(StorageError) {
                    let claimed = try claim(store, "ep_all", owner: "worker-\(worker)", at: 100 + Double(round) * 0.01, limit: 3)
                    claimedIDs.withLock { $0 += claimed.map(\.delivery.id) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        try expectEqual(failures.withLock { $0 }, [], "no claim failed")
        let ids = claimedIDs.withLock { $0 }
        try expectEqual(ids.count, Set(ids).count, "no delivery was claimed twice")
        try expectEqual(ids.count, 40, "every delivery was claimed")
    }
}
