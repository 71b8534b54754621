import Foundation
import Storage

extension PostgresRecords {
    static let eventColumns = "id, type, user_id, occurred_at, data, uuid"

    /// Locks the event's user row first (`FOR NO KEY UPDATE`, until the commit), then draws the id: transactions
    /// appending events for one user are serialised, so their ids follow their commit order (see `EventStore`).
    @discardableResult
    func appendEvent(_ event: NewEvent) throws(StorageError) -> Int64 {
        try validate { () throws(StorageError) in try event.validate() }
        var parameters = PostgresParameters()
        let sql = "WITH \(Self.appendingEvents([event], lockingUser: event.userID, parameters: &parameters)) SELECT id FROM appended"
        let ids = try run { connection throws(PostgresError) in
            try connection.run(sql, parameters.values) { row throws(PostgresError) in try row.integer(0) }
        }
        guard let id = ids.first else { throw StorageError(.unavailable, "the event was not appended") }
        return id
    }

    /// Appends an event without a UUID, as the schema's version 9 does (before the column existed): its public ID is its
    /// sequence number's (`EventRecord.publicID`). For migrations only, which hold the migration lock: no user lock.
    func appendLegacyEvent(type: String, userID: [UInt8]?, occurredAt: Date, data: [UInt8]) throws(StorageError) {
        let sql = """
            WITH appended AS (
                INSERT INTO events (type, user_id, occurred_at, data) VALUES ($1, $2, $3, $4) RETURNING id, type, user_id, occurred_at
            ), \(Self.queuingWebhookDeliveries)
            SELECT id FROM appended
            """
        try run { connection throws(PostgresError) in
            _ = try connection.run(sql, [.text(type), .optional(userID, PostgresValue.bytea), .date(occurredAt), .bytea(data)])
        }
    }

    /// The CTEs `locked` (when `userID` is given: that user's row, locked) and `appended` (the events, inserted in
    /// their order after the lock was taken, returning their ids), for `appendEvent` and the ceremonies' statements.
    ///
    /// With `precondition`, the name of a CTE of the same statement (the ceremony's session), the lock is taken only
    /// after that CTE produced a row, and the events are inserted only then; without it, they are inserted whether or
    /// not the user's row exists (`user.deleted` comes after the row is gone).
    static func appendingEvents(
        _ events: [NewEvent],
        lockingUser userID: [UInt8]?,
        after precondition: String? = nil,
        parameters: inout PostgresParameters
    ) -> String {
        var clauses: [String] = []
        var lock = ""
        if let userID {
            let user = parameters.bind(.bytea(userID), as: "bytea")
            if let precondition {
                clauses.append("locked AS (SELECT id FROM users WHERE id = \(user) AND EXISTS (SELECT 1 FROM \(precondition)) FOR NO KEY UPDATE)")
                lock = " CROSS JOIN locked"
            } else {
                clauses.append("locked AS (SELECT id FROM users WHERE id = \(user) FOR NO KEY UPDATE)")
                // A count, so that an event is appended without its user row, and so that the lock comes first.
                lock = " CROSS JOIN (SELECT count(*) FROM locked) AS lock"
            }
        }
        let rows = events.enumerated().map { position, event in
            "(\(position), \(parameters.bind(eventValues(event))))"
        }
        // The join makes the lock come before the rows are produced; the sequence is drawn row by row, in `position`
        // order.
        clauses.append(
            """
            appended AS (
                INSERT INTO events (type, user_id, occurred_at, data, uuid)
                SELECT event.type, event.user_id, event.occurred_at, event.data, event.uuid
                FROM (VALUES \(rows.joined(separator: ", "))) AS event(position, type, user_id, occurred_at, data, uuid)\(lock)
                ORDER BY event.position
                RETURNING id, type, user_id, occurred_at
            )
            """
        )
        clauses.append(queuingWebhookDeliveries)
        return clauses.joined(separator: ", ")
    }

    /// The CTE `queued`: a delivery of each `appended` event to every endpoint subscribed to its type, due at once when it
    /// is the first of its user in the statement and no delivery of that user to that endpoint is pending, waiting
    /// (next_attempt_at NULL) otherwise. The check reads the statement's snapshot, which may miss a delivery committed
    /// while the statement waited for the user's row lock, or still see pending a head that another node is ending
    /// (`PostgresStoreTests.aFollowerAppendedWhileItsHeadEndedWaitsForARepair`): the claim checks the chain again, and
    /// `repairWebhookChains`, every second over the recent deliveries while a node is busy (`WebhookChainRepairSchedule`),
    /// makes a delivery due that waits for nothing.
    static let queuingWebhookDeliveries = """
        queued AS (
            INSERT INTO webhook_deliveries (event_id, endpoint_id, user_id, status, attempts, queued_at, next_attempt_at, lease_until, updated_at)
            SELECT a.id, s.endpoint_id, a.user_id, 'pending', 0, a.occurred_at,
                CASE WHEN a.user_id IS NULL OR (
                    row_number() OVER (PARTITION BY s.endpoint_id, a.user_id ORDER BY a.id) = 1 AND NOT EXISTS (
                        SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = s.endpoint_id AND p.user_id = a.user_id AND p.status = 'pending'
                    )
                ) THEN a.occurred_at END,
                0, a.occurred_at
            FROM appended a JOIN webhook_subscriptions s ON s.event_type = a.type OR s.event_type = '*'
            ORDER BY a.id, s.endpoint_id COLLATE "C"
        )
        """

    /// The values of an event's `type, user_id, occurred_at, data, uuid`, with their types.
    static func eventValues(_ event: NewEvent) -> [(PostgresValue, String)] {
        eventValues(type: event.type, userID: event.userID, occurredAt: event.occurredAt, data: event.data, uuid: event.id)
    }

    /// The values of `type, user_id, occurred_at, data, uuid`, with their types; `uuid` nil for a legacy event.
    static func eventValues(type: String, userID: [UInt8]?, occurredAt: Date, data: [UInt8], uuid: UUID?) -> [(PostgresValue, String)] {
        [
            (.text(type), "text"), (.optional(userID, PostgresValue.bytea), "bytea"), (.date(occurredAt), "float8"), (.bytea(data), "bytea"),
            (.optional(uuid?.lowercaseText, PostgresValue.text), "text"),
        ]
    }

    static func eventRecord(_ row: PostgresRow) throws(PostgresError) -> EventRecord {
        var uuid: UUID?
        if !row.isNull(5) {
            guard let stored = UUID(canonicalText: row.text(5)) else { throw PostgresError(.decodingFailed, "an event's UUID is not a UUID") }
            uuid = stored
        }
        return EventRecord(
            id: try row.integer(0),
            uuid: uuid,
            type: row.text(1),
            userID: row.isNull(2) ? nil : row.bytes(2),
            occurredAt: try row.date(3),
            data: row.bytes(4)
        )
    }
}
