import Foundation

/// The appending of events to the outbox, in a transaction (`StoreTransaction`); the outbox is read by single calls
/// (`EventStore`).
public protocol EventTransactions {
    /// Appends an event to the outbox (`EventStore`), committed with the transaction, and a pending delivery of it to
    /// every endpoint subscribed to its type (`WebhookDeliveryStore`): due at `event.occurredAt` when no delivery of the
    /// same user to that endpoint is pending, waiting behind it otherwise.
    /// - Returns: the event's ID.
    /// - Throws: `storage.invalidRecord` when the event breaks a bound (`NewEvent.validate`).
    @discardableResult
    func appendEvent(_ event: NewEvent) throws(StorageError) -> Int64
}

extension EventTransactions {
    /// Appends `events` in their order.
    public func appendEvents(_ events: [NewEvent]) throws(StorageError) {
        for event in events {
            try appendEvent(event)
        }
    }
}
