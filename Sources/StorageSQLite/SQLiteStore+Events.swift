import Foundation
import Storage

extension SQLiteStore {
    public func events(after id: Int64, limit: Int) throws(StorageError) -> [EventRecord] {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("SELECT \(SQLiteRecords.eventColumns) FROM events WHERE id > ?1 ORDER BY id LIMIT ?2")
                .run([.integer(id), .integer(Int64(max(0, limit)))], row: SQLiteRecords.eventRecord)
        }
    }

    public func publicEventIDs(of ids: [Int64]) throws(StorageError) -> [Int64: String] {
        try Self.validatePublicIDLookup(ids)
        guard !ids.isEmpty else { return [:] }
        let placeholders = (1...ids.count).map { "?\($0)" }.joined(separator: ", ")
        let rows = try withConnection { connection throws(SQLiteError) in
            try connection.statement("SELECT id, uuid FROM events WHERE id IN (\(placeholders))").run(ids.map { .integer($0) }) {
                row throws(SQLiteError) in
                let id = row.integer(0)
                return (id, row.isNull(1) ? "evt_\(id)" : "evt_" + row.text(1))
            }
        }
        return Dictionary(rows) { first, _ in first }
    }

    /// Raises `event_sequence.last_id` to the newest id first, in the same transaction: the ids of the events it deletes
    /// are not handed out again (`SQLiteRecords.eventInsert`).
    public func purgeEvents(occurredBefore cutoff: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) -> Int in
                try connection.statement("UPDATE event_sequence SET last_id = max(last_id, coalesce((SELECT max(id) FROM events), 0))").run([])
                return try connection.statement(
                    """
                    DELETE FROM events WHERE occurred_at < ?1 AND NOT EXISTS (
                        SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id AND (d.status = 'pending' OR (d.status = 'dead' AND d.updated_at >= ?1))
                    )
                    """
                ).run([.date(cutoff)])
            }
        }
    }
}
