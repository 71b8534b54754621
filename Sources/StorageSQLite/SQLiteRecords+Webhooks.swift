import Foundation
import Storage

extension SQLiteRecords {
    static let webhookDeliveryColumns = """
        id, event_id, endpoint_id, user_id, status, attempts, queued_at, next_attempt_at, last_attempt_at, last_status, last_error,
        lease_owner, lease_until, updated_at
        """

    static let subscriptionLookup = SQLiteQuery("SELECT 1 FROM webhook_subscriptions WHERE event_type IN (?1, '*') LIMIT 1")
    static let deliveriesQueueing = SQLiteQuery(
        """
        INSERT INTO webhook_deliveries (
            event_id, endpoint_id, user_id, status, attempts, queued_at, next_attempt_at, lease_until, updated_at
        )
        SELECT ?1, s.endpoint_id, ?2, 'pending', 0, ?3,
            CASE WHEN ?2 IS NULL OR NOT EXISTS (
                SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = s.endpoint_id AND p.user_id = ?2 AND p.status = 'pending'
            ) THEN ?3 END,
            0, ?3
        FROM (SELECT DISTINCT endpoint_id FROM webhook_subscriptions WHERE event_type IN (?4, '*') ORDER BY endpoint_id) AS s
        """
    )

    /// A delivery of the event to every endpoint subscribed to its type: due at once when no delivery of the same user
    /// to that endpoint is pending, waiting (next_attempt_at NULL) behind it otherwise. One writer at a time: the check
    /// sees every committed delivery.
    ///
    /// The insert runs only when an endpoint takes the event's type: it opens a cursor on the deliveries and each of
    /// their indexes even when it inserts nothing (2.2 % of the server's samples under sign-ins with no webhooks), and the
    /// look-up in the few subscriptions is much cheaper.
    func queueWebhookDeliveries(eventID: Int64, type: String, userID: [UInt8]?, occurredAt: Date) throws(StorageError) {
        try run { connection throws(SQLiteError) in
            let subscribed = try connection.statement(Self.subscriptionLookup)
                .run([.text(type)]) { _ throws(SQLiteError) in true }
            guard !subscribed.isEmpty else { return }
            try connection.statement(Self.deliveriesQueueing)
                .run([.integer(eventID), userID.map { .blob($0) } ?? .null, .date(occurredAt), .text(type)])
        }
    }

    func webhookSubscriptions() throws(StorageError) -> [WebhookSubscription] {
        try run { connection throws(SQLiteError) in try Self.webhookSubscriptions(connection) }
    }

    static func webhookSubscriptions(_ connection: SQLiteConnection) throws(SQLiteError) -> [WebhookSubscription] {
        let rows = try connection.statement("SELECT endpoint_id, event_type FROM webhook_subscriptions ORDER BY endpoint_id, event_type")
            .run([]) { row throws(SQLiteError) in (row.text(0), row.text(1)) }
        return Dictionary(grouping: rows, by: \.0).map { WebhookSubscription(endpointID: $0.key, storedTypes: $0.value.map(\.1)) }
            .sorted { $0.endpointID < $1.endpointID }
    }

    func setWebhookSubscription(_ subscription: WebhookSubscription) throws(StorageError) {
        try validate { () throws(StorageError) in try subscription.validate() }
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM webhook_subscriptions WHERE endpoint_id = ?1").run([.text(subscription.endpointID)])
            for type in subscription.storedTypes {
                try connection.statement("INSERT INTO webhook_subscriptions (endpoint_id, event_type) VALUES (?1, ?2)")
                    .run([.text(subscription.endpointID), .text(type)])
            }
        }
    }

    func removeWebhookSubscription(endpointID: String, reason: String, now: Date) throws(StorageError) -> Int {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM webhook_subscriptions WHERE endpoint_id = ?1").run([.text(endpointID)])
            return try connection.statement(
                """
                UPDATE webhook_deliveries SET status = 'dead', last_error = ?2, next_attempt_at = NULL, lease_owner = NULL, lease_until = 0,
                    updated_at = ?3
                WHERE endpoint_id = ?1 AND status = 'pending'
                """
            ).run([.text(endpointID), .text(reason), .date(now)])
        }
    }

    func webhookDelivery(id: Int64) throws(StorageError) -> WebhookDeliveryRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.webhookDeliveryColumns) FROM webhook_deliveries WHERE id = ?1")
                .run([.integer(id)], row: Self.webhookDeliveryRecord).first
        }
    }

    func retryWebhookDelivery(id: Int64, now: Date) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?2, queued_at = ?2, attempts = 0, lease_owner = NULL,
                    lease_until = 0, updated_at = ?2
                WHERE id = ?1 AND status = 'dead'
                """
            ).run([.integer(id), .date(now)]) > 0
        }
    }

    /// Records one outcome when `owner` holds the lease; a delivered or dead delivery makes the next of its chain due.
    func recordWebhookOutcome(deliveryID: Int64, _ outcome: WebhookDeliveryOutcome, owner: String, now: Date) throws(StorageError) {
        let id = SQLiteValue.integer(deliveryID)
        let holder = SQLiteValue.text(owner)
        let ended: [(endpoint: String, user: [UInt8]?)] = try run { connection throws(SQLiteError) in
            switch outcome {
            case .released:
                _ = try connection.statement(
                    "UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = 0, updated_at = ?3 WHERE id = ?1 AND lease_owner = ?2"
                ).run([id, holder, .date(now)])
                return []
            case .retry(let next, let status, let error):
                _ = try connection.statement(
                    """
                    UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = ?3, last_status = ?4, last_error = ?5,
                        next_attempt_at = ?6, lease_owner = NULL, lease_until = 0, updated_at = ?3
                    WHERE id = ?1 AND lease_owner = ?2 AND status = 'pending'
                    """
                ).run([id, holder, .date(now), status.map { .integer(Int64($0)) } ?? .null, .text(error), .date(next)])
                return []
            case .delivered, .dead:
                let (newStatus, status, error): (String, Int?, String?) =
                    switch outcome {
                    case .delivered(let status): ("delivered", status, nil)
                    case .dead(let status, let error): ("dead", status, error)
                    default: ("pending", nil, nil)
                    }
                return try connection.statement(
                    """
                    UPDATE webhook_deliveries SET status = ?6, attempts = attempts + 1, last_attempt_at = ?3, last_status = ?4,
                        last_error = ?5, next_attempt_at = NULL, lease_owner = NULL, lease_until = 0, updated_at = ?3
                    WHERE id = ?1 AND lease_owner = ?2 AND status = 'pending'
                    RETURNING endpoint_id, user_id
                    """
                ).run([id, holder, .date(now), status.map { .integer(Int64($0)) } ?? .null, error.map { .text($0) } ?? .null, .text(newStatus)]) {
                    row throws(SQLiteError) in (row.text(0), row.isNull(1) ? nil : row.blob(1))
                }
            }
        }
        for chain in ended {
            guard let user = chain.user else { continue }
            try run { connection throws(SQLiteError) in
                try connection.statement(
                    """
                    UPDATE webhook_deliveries SET next_attempt_at = ?3, updated_at = ?3
                    WHERE id = (
                        SELECT id FROM webhook_deliveries WHERE endpoint_id = ?1 AND user_id = ?2 AND status = 'pending' ORDER BY event_id LIMIT 1
                    ) AND next_attempt_at IS NULL
                    """
                ).run([.text(chain.endpoint), .blob(user), .date(now)])
            }
        }
    }

    static func webhookDeliveryRecord(_ row: SQLiteRow) throws(SQLiteError) -> WebhookDeliveryRecord {
        WebhookDeliveryRecord(
            id: row.integer(0),
            eventID: row.integer(1),
            endpointID: row.text(2),
            userID: row.isNull(3) ? nil : row.blob(3),
            status: WebhookDeliveryStatus(rawValue: row.text(4)) ?? .dead,
            attempts: Int(row.integer(5)),
            queuedAt: row.date(6),
            nextAttemptAt: row.isNull(7) ? nil : row.date(7),
            lastAttemptAt: row.isNull(8) ? nil : row.date(8),
            lastStatus: row.isNull(9) ? nil : Int(row.integer(9)),
            lastError: row.isNull(10) ? nil : row.text(10),
            leaseOwner: row.isNull(11) ? nil : row.text(11),
            leaseUntil: row.date(12),
            updatedAt: row.date(13)
        )
    }
}
