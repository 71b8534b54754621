import Foundation
import Storage

/// The delivery worker's calls commit without waiting for the disk (see `WebhookDeliveryStore`): a crash of the
/// machine can only make a delivery be made again.
extension SQLiteStore {
    public func claimWebhookDeliveries(
        endpointID: String,
        owner: String,
        now: Date,
        leaseUntil: Date,
        limit: Int
    ) throws(StorageError)
        -> [ClaimedWebhookDelivery]
    {
        try withConnectionDeferringDurability { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) -> [ClaimedWebhookDelivery] in
                let deliveries = try connection.statement(
                    """
                    UPDATE webhook_deliveries SET lease_owner = ?2, lease_until = ?4, updated_at = ?3
                    WHERE id IN (
                        SELECT d.id FROM webhook_deliveries d
                        WHERE d.endpoint_id = ?1 AND d.status = 'pending' AND d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= ?3
                            AND d.lease_until <= ?3
                            AND NOT EXISTS (
                                SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id AND p.user_id = d.user_id
                                    AND p.status = 'pending' AND p.event_id < d.event_id
                            )
                        ORDER BY d.next_attempt_at, d.event_id LIMIT ?5
                    )
                    RETURNING \(SQLiteRecords.webhookDeliveryColumns)
                    """
                ).run(
                    [.text(endpointID), .text(owner), .date(now), .date(leaseUntil), .integer(Int64(max(0, limit)))],
                    row: SQLiteRecords.webhookDeliveryRecord
                )
                var claimed: [ClaimedWebhookDelivery] = []
                for delivery in deliveries {
                    let event = try connection.statement("SELECT \(SQLiteRecords.eventColumns) FROM events WHERE id = ?1")
                        .run([.integer(delivery.eventID)], row: SQLiteRecords.eventRecord)
                    if let event = event.first { claimed.append(ClaimedWebhookDelivery(delivery: delivery, event: event)) }
                }
                return claimed.sorted {
                    ($0.delivery.nextAttemptAt ?? now, $0.delivery.eventID) < ($1.delivery.nextAttemptAt ?? now, $1.delivery.eventID)
                }
            }
        }
    }

    public func recordWebhookOutcomes(
        _ outcomes: [(deliveryID: Int64, outcome: WebhookDeliveryOutcome)],
        owner: String,
        now: Date
    ) throws(StorageError) {
        guard !outcomes.isEmpty else { return }
        try withRecords(deferringDurability: true) { records throws(StorageError) in
            try records.immediateTransaction { () throws(StorageError) in
                for (id, outcome) in outcomes {
                    try records.recordWebhookOutcome(deliveryID: id, outcome, owner: owner, now: now)
                }
            }
        }
    }

    public func repairWebhookChains(queuedSince: Date, now: Date) throws(StorageError) -> Int {
        try withConnectionDeferringDurability { connection throws(SQLiteError) in
            try connection.statement(
                """
                UPDATE webhook_deliveries SET next_attempt_at = ?2, updated_at = ?2
                WHERE status = 'pending' AND next_attempt_at IS NULL AND queued_at >= ?1 AND NOT EXISTS (
                    SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = webhook_deliveries.endpoint_id
                        AND p.user_id = webhook_deliveries.user_id AND p.status = 'pending' AND p.event_id < webhook_deliveries.event_id
                )
                """
            ).run([.date(queuedSince), .date(now)])
        }
    }

    public func webhookDeliveries(status: WebhookDeliveryStatus?, after id: Int64, limit: Int) throws(StorageError) -> [WebhookDeliveryRecord] {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                """
                SELECT \(SQLiteRecords.webhookDeliveryColumns) FROM webhook_deliveries WHERE id > ?1 AND (?2 IS NULL OR status = ?2)
                ORDER BY id LIMIT ?3
                """
            ).run(
                [.integer(id), status.map { .text($0.rawValue) } ?? .null, .integer(Int64(max(0, limit)))],
                row: SQLiteRecords.webhookDeliveryRecord
            )
        }
    }

    public func webhookDeliveryCounts() throws(StorageError) -> [WebhookDeliveryCount] {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("SELECT endpoint_id, status, count(*) FROM webhook_deliveries GROUP BY endpoint_id, status").run([]) {
                row throws(SQLiteError) in
                WebhookDeliveryCount(
                    endpointID: row.text(0),
                    status: WebhookDeliveryStatus(rawValue: row.text(1)) ?? .dead,
                    count: Int(row.integer(2))
                )
            }
        }
    }
}
