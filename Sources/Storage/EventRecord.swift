import Foundation

/// An event of the outbox, as stored.
public struct EventRecord: Sendable, Equatable {
    /// The sequence number the store assigned when the event was appended: unique, and increasing in the order of
    /// appends on every driver (what else a reader may rely on differs by driver, see `EventStore`). It orders the
    /// outbox and a user's events; it is not the event's identity outside the store (`publicID`), since a database
    /// rolled back, restored or failed over hands the same numbers out again.
    public var id: Int64
    /// The event's identity (`NewEvent.id`); nil for an event written before stores kept one (schema version 12 on
    /// SQLite, 11 on PostgreSQL) or by a node of release 0.1.0 during a rolling upgrade.
    public var uuid: UUID?
    /// The event type, such as "passkey.registered".
    public var type: String
    /// The account the event concerns, if any.
    public var userID: [UInt8]?
    /// When the change happened.
    public var occurredAt: Date
    /// The JSON payload bytes.
    public var data: [UInt8]

    /// Creates an event record from its fields.
    public init(id: Int64, uuid: UUID?, type: String, userID: [UInt8]?, occurredAt: Date, data: [UInt8]) {
        self.id = id
        self.uuid = uuid
        self.type = type
        self.userID = userID
        self.occurredAt = occurredAt
        self.data = data
    }

    /// The stored form of `event` under `id`.
    public init(id: Int64, _ event: NewEvent) {
        self.init(id: id, uuid: event.id, type: event.type, userID: event.userID, occurredAt: event.occurredAt, data: event.data)
    }

    /// The event's ID as receivers see it (the webhook's `webhook-id`, the admin API): `evt_` and the UUID's lowercase
    /// canonical text, or, for an event without one (`uuid`), `evt_` and its sequence number, the ID it was first sent
    /// under. The two forms never meet: a UUID's text has dashes.
    public var publicID: String {
        Self.publicID(sequence: id, uuid: uuid)
    }

    /// The public ID (`publicID`) of the event with sequence number `sequence` and UUID `uuid`.
    public static func publicID(sequence: Int64, uuid: UUID?) -> String {
        uuid.map { "evt_" + $0.lowercaseText } ?? "evt_\(sequence)"
    }
}
