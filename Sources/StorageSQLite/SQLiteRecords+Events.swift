import Foundation
import Storage

extension SQLiteRecords {
    static let eventColumns = "id, type, user_id, occurred_at, data"

    /// `AUTOINCREMENT` ids: never reused, even after the newest event is purged; a rolled-back transaction gives its
    /// ids back, so committed ids have no gaps but those of purges.
    @discardableResult
    func appendEvent(_ event: NewEvent) throws(StorageError) -> Int64 {
        try validate { () throws(StorageError) in try event.validate() }
        // The id is the rowid (INTEGER PRIMARY KEY), read after the insert instead of with RETURNING.
        let id = try run { connection throws(SQLiteError) -> Int64? in
            let inserted = try connection.statement("INSERT INTO events (type, user_id, occurred_at, data) VALUES (?1, ?2, ?3, ?4)")
                .run([.text(event.type), event.userID.map { .blob($0) } ?? .null, .date(event.occurredAt), .blob(event.data)])
            return inserted == 1 ? connection.lastInsertedRowID : nil
        }
        guard let id else { throw StorageError(.unavailable, "the event was not appended") }
        try queueWebhookDeliveries(eventID: id, event)
        return id
    }

    static func eventRecord(_ row: SQLiteRow) throws(SQLiteError) -> EventRecord {
        EventRecord(id: row.integer(0), type: row.text(1), userID: row.isNull(2) ? nil : row.blob(2), occurredAt: row.date(3), data: row.blob(4))
    }
}
