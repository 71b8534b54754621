import Foundation
import Storage

/// The delivery worker's calls commit without waiting for the WAL flush (see `WebhookDeliveryStore`). Claims lock the
/// rows they take with `FOR UPDATE SKIP LOCKED`, so nodes claiming at once take different deliveries, and a row that
/// another node claimed meanwhile is skipped when it is rechecked (its lease is then in the future).
extension PostgresStore {
    public func claimWebhookDeliveries(
        endpointID: String,
        owner: String,
        now: Date,
        leaseUntil: Date,
        limit: Int
    ) throws(StorageError)
        -> [ClaimedWebhookDelivery]
    {
        try withConnectionDeferringDurability { connection throws(PostgresError) in
            try connection.run(
                Self.claimingWebhookDeliveries,
                [.text(endpointID), .text(owner), .date(now), .date(leaseUntil), .bigint(Int64(max(0, limit)))]
            ) { row throws(PostgresError) in
                ClaimedWebhookDelivery(
                    delivery: try PostgresRecords.webhookDeliveryRecord(row),
                    event: try PostgresRecords.eventRecord(row.columns(from: Self.webhookDeliveryColumnCount))
                )
            }
        }
    }

    /// The claim and the read of the claimed deliveries' events in one statement (one round trip): a claim that fails
    /// or runs out of time leases nothing, where a lease committed before the events were read held the rows unsent
    /// until it ended.
    private static let claimingWebhookDeliveries = """
        WITH claimed AS (
            UPDATE webhook_deliveries SET lease_owner = $2, lease_until = $4, updated_at = $3
            WHERE id IN (
                SELECT d.id FROM webhook_deliveries d
                WHERE d.endpoint_id = $1 AND d.status = 'pending' AND d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= $3
                    AND d.lease_until <= $3
                    AND NOT EXISTS (
                        SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id AND p.user_id = d.user_id
                            AND p.status = 'pending' AND p.event_id < d.event_id
                    )
                ORDER BY d.next_attempt_at, d.event_id LIMIT $5
                FOR UPDATE OF d SKIP LOCKED
            ) AND status = 'pending' AND lease_until <= $3
            RETURNING \(PostgresRecords.webhookDeliveryColumns)
        )
        SELECT \(PostgresRecords.qualified(PostgresRecords.webhookDeliveryColumns, "claimed")), \(PostgresRecords.qualified(PostgresRecords.eventColumns, "events"))
        FROM claimed JOIN events ON events.id = claimed.event_id
        ORDER BY claimed.next_attempt_at, claimed.event_id
        """

    /// How many columns `PostgresRecords.webhookDeliveryColumns` names: the event's columns follow them.
    private static let webhookDeliveryColumnCount = Int32(PostgresRecords.webhookDeliveryColumns.split(separator: ",").count)

    public func recordWebhookOutcomes(
        _ outcomes: [(deliveryID: Int64, outcome: WebhookDeliveryOutcome)],
        owner: String,
        now: Date
    ) throws(StorageError) {
        guard !outcomes.isEmpty else { return }
        try withConnectionDeferringDurability { connection throws(PostgresError) -> Result<Void, StorageError> in
            try connection.transaction { () throws(PostgresError) -> Result<Void, StorageError> in
                let records = PostgresRecords(connection: connection)
                defer { records.isOpen = false }
                do throws(StorageError) {
                    for (id, outcome) in outcomes {
                        try records.recordWebhookOutcome(deliveryID: id, outcome, owner: owner, now: now)
                    }
                } catch {
                    if let failed = records.statementFailure { throw failed }
                    return .failure(error)
                }
                return .success(())
            }
        }.get()
    }

    public func repairWebhookChains(queuedSince: Date, now: Date) throws(StorageError) -> Int {
        try withConnectionDeferringDurability { connection throws(PostgresError) in
            try connection.run(
                """
                UPDATE webhook_deliveries SET next_attempt_at = $2, updated_at = $2
                WHERE status = 'pending' AND next_attempt_at IS NULL AND queued_at >= $1 AND NOT EXISTS (
                    SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = webhook_deliveries.endpoint_id
                        AND p.user_id = webhook_deliveries.user_id AND p.status = 'pending' AND p.event_id < webhook_deliveries.event_id
                )
                """,
                [.date(queuedSince), .date(now)]
            )
        }
    }

    public func webhookDeliveries(status: WebhookDeliveryStatus?, after id: Int64, limit: Int) throws(StorageError) -> [WebhookDeliveryRecord] {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                """
                SELECT \(PostgresRecords.webhookDeliveryColumns) FROM webhook_deliveries WHERE id > $1 AND ($2::text IS NULL OR status = $2::text)
                ORDER BY id LIMIT $3
                """,
                [.bigint(id), .optional(status) { .text($0.rawValue) }, .bigint(Int64(max(0, limit)))],
                row: PostgresRecords.webhookDeliveryRecord
            )
        }
    }

    public func webhookDeliveryCounts() throws(StorageError) -> [WebhookDeliveryCount] {
        try withConnection { connection throws(PostgresError) in
            try connection.run("SELECT endpoint_id, status, count(*) FROM webhook_deliveries GROUP BY endpoint_id, status", []) {
                row throws(PostgresError) in
                WebhookDeliveryCount(
                    endpointID: row.text(0),
                    status: WebhookDeliveryStatus(rawValue: row.text(1)) ?? .dead,
                    count: Int(try row.integer(2))
                )
            }
        }
    }
}
