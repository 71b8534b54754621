import Foundation

/// The webhook subscriptions and the administration of deliveries, in a transaction (`StoreTransaction`); the
/// dispatcher claims and records deliveries by single calls (`WebhookDeliveryStore`).
public protocol WebhookTransactions {
    /// The endpoints that get deliveries, ordered by endpoint ID.
    func webhookSubscriptions() throws(StorageError) -> [WebhookSubscription]

    /// Subscribes the endpoint to its event types, replacing what it had: events appended from now on get a delivery to
    /// it when their type is one of them (every type when `eventTypes` is nil).
    /// - Throws: `storage.invalidRecord` when the subscription breaks a bound (`WebhookSubscription.validate`).
    func setWebhookSubscription(_ subscription: WebhookSubscription) throws(StorageError)

    /// Unsubscribes the endpoint and gives up its pending deliveries (`dead`, `lastError = reason`, lease cleared;
    /// an operator may queue them again).
    /// - Returns: how many pending deliveries were given up.
    func removeWebhookSubscription(endpointID: String, reason: String, now: Date) throws(StorageError) -> Int

    /// The delivery with this ID, or nil.
    func webhookDelivery(id: Int64) throws(StorageError) -> WebhookDeliveryRecord?

    /// Queues a dead delivery again (the admin API's retry): pending, due at `now`, `queuedAt = now` (a new retry
    /// horizon), no attempts, no lease; the last status and error are kept until the next attempt. It goes before every
    /// later pending delivery of its chain.
    /// - Returns: false, changing nothing, when there is no dead delivery with this ID.
    func retryWebhookDelivery(id: Int64, now: Date) throws(StorageError) -> Bool
}

extension WebhookTransactions {
    /// Makes the store's webhook subscriptions those of `subscriptions` (the configuration's endpoints at start-up):
    /// sets each, and removes every other endpoint, giving up its pending deliveries with `removalReason`.
    /// - Returns: the IDs of the endpoints removed and how many pending deliveries they had.
    @discardableResult
    public func configureWebhookSubscriptions(
        _ subscriptions: [WebhookSubscription],
        removalReason: String,
        now: Date
    ) throws(StorageError) -> [(endpointID: String, abandoned: Int)] {
        let kept = Set(subscriptions.map(\.endpointID))
        var removed: [(endpointID: String, abandoned: Int)] = []
        for stored in try webhookSubscriptions() where !kept.contains(stored.endpointID) {
            removed.append((stored.endpointID, try removeWebhookSubscription(endpointID: stored.endpointID, reason: removalReason, now: now)))
        }
        for subscription in subscriptions {
            try setWebhookSubscription(subscription)
        }
        return removed
    }
}
