import Foundation

/// The event outbox, as a delivery worker reads it. Events are appended in the transaction of the change they
/// describe (`StoreTransaction.appendEvent`, the `events:` of `CeremonyStore`), so a change and its event are
/// committed together or not at all.
///
/// What the ids guarantee:
/// - On every driver: unique, and increasing in the order the events were appended (within a transaction too).
/// - In memory and on SQLite (one writer at a time): also increasing in commit order and without gaps from
///   rolled-back transactions, so `events(after:)` can be read as a cursor: nothing commits later below its end.
/// - On PostgreSQL: ids come from an identity sequence, drawn when the row is inserted, not when it commits; a
///   rolled-back or retried transaction leaves a gap, and across users a lower id may commit after a higher one.
///   Appending an event for a user first locks that user's row (`FOR NO KEY UPDATE`, held to the commit), so the
///   transactions that append events for one user are serialised: for one user, id order is commit order. A reader
///   that has seen a user's event N will never see an event of that user below N appear later.
///
/// So a delivery worker that must deliver "in order per user" on every driver keeps a delivery state per event
/// (pending, delivered) instead of a high-water mark, and delivers a user's pending events in id order; events
/// without a user have no order beyond their ids.
public protocol EventStore: Sendable {
    /// Returns at most `limit` events with `id > after`, ordered by `id`.
    func events(after id: Int64, limit: Int) throws(StorageError) -> [EventRecord]

    /// The public ID (`EventRecord.publicID`) of each of the events with these sequence numbers (`EventRecord.id`) that
    /// is still stored, by sequence number: how the admin API names a delivery's event. At most
    /// `maximumPublicIDLookups` numbers (`storage.invalidRecord` beyond).
    func publicEventIDs(of ids: [Int64]) throws(StorageError) -> [Int64: String]

    /// Deletes every event with `occurredAt < cutoff` (the retention purge), with its webhook deliveries, except the
    /// events that still have a pending delivery, or a dead one that died (`updatedAt`) at or after `cutoff`: an event is
    /// never purged before it is delivered, and a dead delivery stays listed for a whole retention period.
    /// - Returns: the number of events deleted.
    func purgeEvents(occurredBefore cutoff: Date) throws(StorageError) -> Int
}

extension EventStore {
    /// The most sequence numbers of one `publicEventIDs(of:)`.
    public static var maximumPublicIDLookups: Int { 1_000 }

    /// Refuses more numbers than `maximumPublicIDLookups`. For drivers to check before they read.
    public static func validatePublicIDLookup(_ ids: [Int64]) throws(StorageError) {
        guard ids.count <= maximumPublicIDLookups else {
            throw StorageError(.invalidRecord, "at most \(maximumPublicIDLookups) event IDs are looked up at once")
        }
    }
}
