import Foundation

/// The webhook deliveries, as the delivery worker (and the admin API, and metrics) see them. Deliveries are created by
/// the store itself, in the transaction that appends their event (`StoreTransaction.appendEvent`), one per subscribed
/// endpoint (`StoreTransaction.setWebhookSubscription`).
///
/// Order: the deliveries of one user to one endpoint form a chain in event order. Only the chain's first pending
/// delivery has a `nextAttemptAt` (the others wait with nil); when it is delivered or dead, the next one becomes due at
/// once. `claimWebhookDeliveries` also checks, for each delivery it returns, that no earlier delivery of its chain is
/// pending, so a user's later event is never sent to an endpoint while an earlier one to the same endpoint is pending.
/// Deliveries without a user are independent.
///
/// Claims are leases: a claimed delivery is not claimed again until `leaseUntil`, so a worker that dies (a node
/// killed mid-delivery) gives its claims back when their leases end. Outcomes are recorded only for the owner that
/// holds the lease.
///
/// Durability: claims and outcomes may commit without waiting for the disk (like the challenge writes): losing them to a
/// crash of the machine only makes a delivery be made again (delivery is at least once). The deliveries themselves are
/// created durably, with their event.
public protocol WebhookDeliveryStore: Sendable {
    /// Claims at most `limit` deliveries to `endpointID` that are pending, due (`nextAttemptAt <= now`), not leased
    /// (`leaseUntil <= now`) and first in their chain; sets their lease to `owner` until `leaseUntil`. Ordered by
    /// `nextAttemptAt`, then `eventID`. Across connections, processes and nodes sharing the database, a delivery is
    /// returned to one claimer at a time.
    func claimWebhookDeliveries(
        endpointID: String,
        owner: String,
        now: Date,
        leaseUntil: Date,
        limit: Int
    ) throws(StorageError)
        -> [ClaimedWebhookDelivery]

    /// Records each outcome for the delivery with that ID, when `owner` holds its lease (otherwise, for that delivery,
    /// nothing changes: its lease ended and another worker may have claimed it). Every outcome clears the lease.
    /// `delivered` and `dead` end the delivery (`nextAttemptAt` nil) and make the next pending delivery of its chain due
    /// at `now`; `retry` counts the attempt and sets `nextAttemptAt`; the attempt's time is `now`.
    func recordWebhookOutcomes(_ outcomes: [(deliveryID: Int64, outcome: WebhookDeliveryOutcome)], owner: String, now: Date) throws(StorageError)

    /// Makes due at `now` every pending delivery queued at or after `queuedSince` that waits (`nextAttemptAt` nil) although
    /// no earlier delivery of its chain is pending: the repair of a chain whose head was completed while the delivery
    /// was being appended by another node (PostgreSQL). Run on start-up (with `distantPast`) and now and then.
    /// - Returns: how many it made due.
    func repairWebhookChains(queuedSince: Date, now: Date) throws(StorageError) -> Int

    /// At most `limit` deliveries with `id > after`, ordered by `id`, only those in `status` when it is given.
    func webhookDeliveries(status: WebhookDeliveryStatus?, after id: Int64, limit: Int) throws(StorageError) -> [WebhookDeliveryRecord]

    /// The number of deliveries per endpoint and status (endpoints and statuses without any are left out).
    func webhookDeliveryCounts() throws(StorageError) -> [WebhookDeliveryCount]
}
