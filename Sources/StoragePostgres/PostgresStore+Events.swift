import Foundation
import Storage

extension PostgresStore {
    public func events(after id: Int64, limit: Int) throws(StorageError) -> [EventRecord] {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(PostgresRecords.eventColumns) FROM events WHERE id > $1 ORDER BY id LIMIT $2",
                [.bigint(id), .bigint(Int64(max(0, limit)))],
                row: PostgresRecords.eventRecord
            )
        }
    }

    public func publicEventIDs(of ids: [Int64]) throws(StorageError) -> [Int64: String] {
        try Self.validatePublicIDLookup(ids)
        guard !ids.isEmpty else { return [:] }
        let rows = try withConnection { connection throws(PostgresError) in
            try connection.run(
                "SELECT id, uuid FROM events WHERE id = ANY($1::bigint[])",
                [.text("{" + ids.map(String.init).joined(separator: ",") + "}")]
            ) { row throws(PostgresError) in
                let id = try row.integer(0)
                return (id, row.isNull(1) ? "evt_\(id)" : "evt_" + row.text(1))
            }
        }
        return Dictionary(rows) { first, _ in first }
    }

    public func purgeEvents(occurredBefore cutoff: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                """
                DELETE FROM events WHERE occurred_at < $1 AND NOT EXISTS (
                    SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id AND (d.status = 'pending' OR (d.status = 'dead' AND d.updated_at >= $1))
                )
                """,
                [.date(cutoff)]
            )
        }
    }
}
