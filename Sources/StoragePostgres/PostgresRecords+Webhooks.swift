import Foundation
import Storage

extension PostgresRecords {
    static let webhookDeliveryColumns = """
        id, event_id, endpoint_id, user_id, status, attempts, queued_at, next_attempt_at, last_attempt_at, last_status, last_error,
        lease_owner, lease_until, updated_at
        """

    func webhookSubscriptions() throws(StorageError) -> [WebhookSubscription] {
        let rows = try run { connection throws(PostgresError) in
            try connection.run("SELECT endpoint_id, event_type FROM webhook_subscriptions ORDER BY endpoint_id, event_type", []) {
                row throws(PostgresError) in (row.text(0), row.text(1))
            }
        }
        return Dictionary(grouping: rows, by: \.0).map { WebhookSubscription(endpointID: $0.key, storedTypes: $0.value.map(\.1)) }
            .sorted { $0.endpointID < $1.endpointID }
    }

    func setWebhookSubscription(_ subscription: WebhookSubscription) throws(StorageError) {
        try validate { () throws(StorageError) in try subscription.validate() }
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM webhook_subscriptions WHERE endpoint_id = $1", [.text(subscription.endpointID)])
            for type in subscription.storedTypes {
                try connection.run(
                    "INSERT INTO webhook_subscriptions (endpoint_id, event_type) VALUES ($1, $2)",
                    [.text(subscription.endpointID), .text(type)]
                )
            }
        }
    }

    func removeWebhookSubscription(endpointID: String, reason: String, now: Date) throws(StorageError) -> Int {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM webhook_subscriptions WHERE endpoint_id = $1", [.text(endpointID)])
            return try connection.run(
                """
                UPDATE webhook_deliveries SET status = 'dead', last_error = $2, next_attempt_at = NULL, lease_owner = NULL, lease_until = 0,
                    updated_at = $3
                WHERE endpoint_id = $1 AND status = 'pending'
                """,
                [.text(endpointID), .text(reason), .date(now)]
            )
        }
    }

    func webhookDelivery(id: Int64) throws(StorageError) -> WebhookDeliveryRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.webhookDeliveryColumns) FROM webhook_deliveries WHERE id = $1",
                [.bigint(id)],
                row: Self.webhookDeliveryRecord
            )
            .first
        }
    }

    func retryWebhookDelivery(id: Int64, now: Date) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $2, queued_at = $2, attempts = 0, lease_owner = NULL,
                    lease_until = 0, updated_at = $2
                WHERE id = $1 AND status = 'dead'
                """,
                [.bigint(id), .date(now)]
            ) > 0
        }
    }

    /// Records one outcome when `owner` holds the lease; a delivered or dead delivery makes the next of its chain due, in
    /// the same statement.
    func recordWebhookOutcome(deliveryID: Int64, _ outcome: WebhookDeliveryOutcome, owner: String, now: Date) throws(StorageError) {
        let id = PostgresValue.bigint(deliveryID)
        let holder = PostgresValue.text(owner)
        try run { connection throws(PostgresError) in
            switch outcome {
            case .released:
                try connection.run(
                    "UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = 0, updated_at = $3 WHERE id = $1 AND lease_owner = $2",
                    [id, holder, .date(now)]
                )
            case .retry(let next, let status, let error):
                try connection.run(
                    """
                    UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = $3, last_status = $4, last_error = $5,
                        next_attempt_at = $6, lease_owner = NULL, lease_until = 0, updated_at = $3
                    WHERE id = $1 AND lease_owner = $2 AND status = 'pending'
                    """,
                    [id, holder, .date(now), .optional(status) { .bigint(Int64($0)) }, .text(error), .date(next)]
                )
            case .delivered, .dead:
                let (newStatus, status, error): (String, Int?, String?) =
                    switch outcome {
                    case .delivered(let status): ("delivered", status, nil)
                    case .dead(let status, let error): ("dead", status, error)
                    default: ("pending", nil, nil)
                    }
                try connection.run(
                    """
                    WITH ended AS (
                        UPDATE webhook_deliveries SET status = $6, attempts = attempts + 1, last_attempt_at = $3, last_status = $4,
                            last_error = $5, next_attempt_at = NULL, lease_owner = NULL, lease_until = 0, updated_at = $3
                        WHERE id = $1 AND lease_owner = $2 AND status = 'pending'
                        RETURNING endpoint_id, user_id, id
                    )
                    UPDATE webhook_deliveries SET next_attempt_at = $3, updated_at = $3
                    WHERE id = (
                        SELECT d.id FROM webhook_deliveries d, ended
                        WHERE d.endpoint_id = ended.endpoint_id AND d.user_id = ended.user_id AND d.status = 'pending' AND d.id <> ended.id
                        ORDER BY d.event_id LIMIT 1
                    ) AND next_attempt_at IS NULL
                    """,
                    [id, holder, .date(now), .optional(status) { .bigint(Int64($0)) }, .optional(error, PostgresValue.text), .text(newStatus)]
                )
            }
        }
    }

    static func webhookDeliveryValues(_ delivery: WebhookDeliveryRecord) -> [(PostgresValue, String)] {
        [
            (.bigint(delivery.id), "int8"), (.bigint(delivery.eventID), "int8"), (.text(delivery.endpointID), "text"),
            (.optional(delivery.userID, PostgresValue.bytea), "bytea"), (.text(delivery.status.rawValue), "text"),
            (.bigint(Int64(delivery.attempts)), "int8"), (.date(delivery.queuedAt), "float8"),
            (.optional(delivery.nextAttemptAt, PostgresValue.date), "float8"), (.optional(delivery.lastAttemptAt, PostgresValue.date), "float8"),
            (.optional(delivery.lastStatus) { .bigint(Int64($0)) }, "int8"), (.optional(delivery.lastError, PostgresValue.text), "text"),
            (.null, "text"), (.date(WebhookDeliveryRecord.noLease), "float8"), (.date(delivery.updatedAt), "float8"),
        ]
    }

    static func webhookDeliveryRecord(_ row: PostgresRow) throws(PostgresError) -> WebhookDeliveryRecord {
        WebhookDeliveryRecord(
            id: try row.integer(0),
            eventID: try row.integer(1),
            endpointID: row.text(2),
            userID: row.isNull(3) ? nil : row.bytes(3),
            status: WebhookDeliveryStatus(rawValue: row.text(4)) ?? .dead,
            attempts: Int(try row.integer(5)),
            queuedAt: try row.date(6),
            nextAttemptAt: row.isNull(7) ? nil : try row.date(7),
            lastAttemptAt: row.isNull(8) ? nil : try row.date(8),
            lastStatus: row.isNull(9) ? nil : Int(try row.integer(9)),
            lastError: row.isNull(10) ? nil : row.text(10),
            leaseOwner: row.isNull(11) ? nil : row.text(11),
            leaseUntil: try row.date(12),
            updatedAt: try row.date(13)
        )
    }
}
