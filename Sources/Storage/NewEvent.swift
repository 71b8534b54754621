import Foundation

/// An event to append to the outbox (`StoreTransaction.appendEvent`, the `events:` of `CeremonyStore`), written in
/// the same transaction as the change it describes. The store gives it its sequence number (`EventRecord.id`); its
/// identity, `id`, comes with it.
public struct NewEvent: Sendable, Equatable {
    /// The most bytes of `type`.
    public static let maximumTypeBytes = 64
    /// The most bytes of `data`.
    public static let maximumDataBytes = 8_192

    /// The event's identity outside the store (`EventRecord.publicID`): a time-ordered UUID (version 7) made by the caller
    /// from its clock and random source, so that it never repeats, even after the database is rolled back, restored
    /// from a backup or failed over to a replica that lags, where the store's sequence numbers start again.
    public var id: UUID
    /// The event type, such as "passkey.registered": 1 to 64 bytes of lowercase ASCII letters, digits, `.` and `_`.
    public var type: String
    /// The account the event concerns, when it concerns one; it stays after the account is deleted.
    public var userID: [UInt8]?
    /// When the change happened.
    public var occurredAt: Date
    /// The payload, as JSON bytes (the server's `AccountEvent`); at most `maximumDataBytes`. The store does not read it.
    public var data: [UInt8]

    /// Creates an event from its fields.
    public init(id: UUID, type: String, userID: [UInt8]?, occurredAt: Date, data: [UInt8]) {
        self.id = id
        self.type = type
        self.userID = userID
        self.occurredAt = occurredAt
        self.data = data
    }

    /// Refuses an event no store keeps (a type outside its alphabet or length, a payload over the bound). For drivers
    /// to check before they write.
    public func validate() throws(StorageError) {
        try Self.validate(type: type)
        guard data.count <= Self.maximumDataBytes else {
            throw StorageError(.invalidRecord, "an event's data must be at most \(Self.maximumDataBytes) bytes")
        }
    }

    /// Refuses a type outside the alphabet or length of event types.
    public static func validate(type: String) throws(StorageError) {
        let allowed = type.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x5F }
        guard !type.isEmpty, type.utf8.count <= maximumTypeBytes, allowed else {
            throw StorageError(.invalidRecord, "an event type must be 1 to \(maximumTypeBytes) bytes of a-z, 0-9, '.' and '_'")
        }
    }
}
