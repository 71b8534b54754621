import Foundation
import Storage

extension SQLiteRecords {
    static let eventColumns = "id, type, user_id, occurred_at, data, uuid"
    /// The id is one above the newest stored one and above `event_sequence.last_id` (its one row, made with the table by
    /// schema version 24), which the purge raises to the newest id before it deletes: never reused, without the
    /// `sqlite_sequence` row `AUTOINCREMENT` rewrote with every event. `VALUES`, not `INSERT … SELECT`: a SELECT that
    /// reads the table it inserts into is first copied into a temporary table (18 k instructions per sign-in).
    static let eventInsert = SQLiteQuery(
        """
        INSERT INTO events (id, type, user_id, occurred_at, data, uuid)
        VALUES ((SELECT max(coalesce((SELECT max(id) FROM events), 0), last_id) + 1 FROM event_sequence), ?1, ?2, ?3, ?4, ?5)
        """
    )
    static let legacyEventInsert = SQLiteQuery("INSERT INTO events (type, user_id, occurred_at, data) VALUES (?1, ?2, ?3, ?4)")

    /// Ids never reused, even after the newest event is purged (`eventInsert`); a rolled-back transaction gives its ids
    /// back, so committed ids have no gaps but those of purges. The event's UUID (unique, `events_by_uuid`) is its
    /// identity outside the store.
    @discardableResult
    func appendEvent(_ event: NewEvent) throws(StorageError) -> Int64 {
        try validate { () throws(StorageError) in try event.validate() }
        return try insertEvent(
            Self.eventInsert,
            [.text(event.type), event.userID.map { .blob($0) } ?? .null, .date(event.occurredAt), .blob(event.data), .text(event.id.lowercaseText)],
            type: event.type,
            userID: event.userID,
            occurredAt: event.occurredAt
        )
    }

    /// Appends an event without a UUID, as the schema's version 10 does (before the column existed, while the table had
    /// `AUTOINCREMENT`): its public ID is its sequence number's (`EventRecord.publicID`). For migrations only.
    func appendLegacyEvent(type: String, userID: [UInt8]?, occurredAt: Date, data: [UInt8]) throws(StorageError) {
        try insertEvent(
            Self.legacyEventInsert,
            [.text(type), userID.map { .blob($0) } ?? .null, .date(occurredAt), .blob(data)],
            type: type,
            userID: userID,
            occurredAt: occurredAt
        )
    }

    @discardableResult
    private func insertEvent(
        _ query: SQLiteQuery,
        _ values: [SQLiteValue],
        type: String,
        userID: [UInt8]?,
        occurredAt: Date
    ) throws(StorageError) -> Int64 {
        // The id is the rowid (INTEGER PRIMARY KEY), read after the insert instead of with RETURNING.
        let id = try run { connection throws(SQLiteError) -> Int64? in
            let inserted = try connection.statement(query).run(values)
            return inserted == 1 ? connection.lastInsertedRowID : nil
        }
        guard let id else { throw StorageError(.unavailable, "the event was not appended") }
        try queueWebhookDeliveries(eventID: id, type: type, userID: userID, occurredAt: occurredAt)
        return id
    }

    static func eventRecord(_ row: SQLiteRow) throws(SQLiteError) -> EventRecord {
        var uuid: UUID?
        if !row.isNull(5) {
            guard let stored = UUID(canonicalText: row.text(5)) else { throw SQLiteError(.corrupt, "an event's UUID is not a UUID") }
            uuid = stored
        }
        return EventRecord(
            id: row.integer(0),
            uuid: uuid,
            type: row.text(1),
            userID: row.isNull(2) ? nil : row.blob(2),
            occurredAt: row.date(3),
            data: row.blob(4)
        )
    }
}
