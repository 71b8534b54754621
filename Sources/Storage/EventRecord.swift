import Foundation

/// An event of the outbox, as stored.
public struct EventRecord: Sendable, Equatable {
    /// The sequence number the store assigned when the event was appended: unique, and increasing in the order of
    /// appends on every driver. What else a reader may rely on differs by driver (see `EventStore`).
    public var id: Int64
    /// The event type, such as "passkey.registered".
    public var type: String
    /// The account the event concerns, if any.
    public var userID: [UInt8]?
    /// When the change happened.
    public var occurredAt: Date
    /// The JSON payload bytes.
    public var data: [UInt8]

    /// Creates an event record from its fields.
    public init(id: Int64, type: String, userID: [UInt8]?, occurredAt: Date, data: [UInt8]) {
        self.id = id
        self.type = type
        self.userID = userID
        self.occurredAt = occurredAt
        self.data = data
    }

    /// The stored form of `event` under `id`.
    public init(id: Int64, _ event: NewEvent) {
        self.init(id: id, type: event.type, userID: event.userID, occurredAt: event.occurredAt, data: event.data)
    }
}
