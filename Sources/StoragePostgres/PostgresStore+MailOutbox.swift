import Foundation
import Storage

/// The sending worker's calls commit without waiting for the WAL flush (as the webhook worker's): a crash can only make
/// a message be sent again. Claims lock the rows they take with `FOR UPDATE SKIP LOCKED`, so nodes claiming at once take
/// different messages, and a row another node claimed meanwhile is skipped when it is rechecked.
extension PostgresStore {
    public func claimMail(owner: String, now: Date, leaseUntil: Date, limit: Int) throws(StorageError) -> [MailOutboxRecord] {
        try withConnectionDeferringDurability { connection throws(PostgresError) in
            try connection.run(
                """
                UPDATE mail_outbox SET lease_owner = $1, lease_until = $3, updated_at = $2
                WHERE id IN (
                    SELECT id FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= $2 AND lease_until <= $2
                    ORDER BY next_attempt_at, id LIMIT $4
                    FOR UPDATE SKIP LOCKED
                ) AND status = 'pending' AND lease_until <= $2
                RETURNING \(PostgresRecords.mailColumns)
                """,
                [.text(owner), .date(now), .date(leaseUntil), .bigint(Int64(max(0, limit)))],
                row: PostgresRecords.mailRecord
            )
            .sorted { ($0.nextAttemptAt ?? now, $0.id) < ($1.nextAttemptAt ?? now, $1.id) }
        }
    }

    public func recordMailOutcome(id: Int64, _ outcome: MailOutcome, owner: String, now: Date) throws(StorageError) {
        let (status, next, error, replyCode): (MailOutboxStatus, Date?, String?, Int?) =
            switch outcome {
            case .sent: (.sent, nil, nil, nil)
            case .retry(let next, let error, let replyCode): (.pending, next, error, replyCode)
            case .dead(let error, let replyCode): (.dead, nil, error, replyCode)
            }
        try withConnectionDeferringDurability { connection throws(PostgresError) in
            _ = try connection.run(
                """
                UPDATE mail_outbox SET status = $3, next_attempt_at = $4, last_error = $5, last_reply_code = $6, attempts = attempts + 1,
                    last_attempt_at = $7, lease_owner = NULL, lease_until = 0, updated_at = $7,
                    message = CASE WHEN $3 = 'pending' THEN message END
                WHERE id = $1 AND status = 'pending' AND lease_owner = $2
                """,
                [
                    .bigint(id), .text(owner), .text(status.rawValue), .optional(next, PostgresValue.date), .optional(error, PostgresValue.text),
                    .optional(replyCode.map { Int64($0) }, PostgresValue.bigint), .date(now),
                ]
            )
        }
    }

    public func mailOutbox(status: MailOutboxStatus?, after id: Int64, limit: Int) throws(StorageError) -> [MailOutboxRecord] {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                """
                SELECT \(PostgresRecords.mailColumns.replacingOccurrences(of: "message_id, message,", with: "message_id, NULL::bytea,"))
                FROM mail_outbox WHERE id > $1 AND ($2::text IS NULL OR status = $2) ORDER BY id LIMIT $3
                """,
                [.bigint(id), .optional(status?.rawValue, PostgresValue.text), .bigint(Int64(max(0, limit)))],
                row: PostgresRecords.mailRecord
            )
        }
    }

    public func mailOutboxCounts() throws(StorageError) -> [MailOutboxStatus: Int] {
        let rows = try withConnection { connection throws(PostgresError) in
            try connection.run("SELECT status, count(*) FROM mail_outbox GROUP BY status", []) { row throws(PostgresError) in
                (MailOutboxStatus(rawValue: row.text(0)) ?? .dead, Int(try row.integer(1)))
            }
        }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    public func mailSuppressions(after key: String, limit: Int) throws(StorageError) -> [MailSuppression] {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(PostgresRecords.suppressionColumns) FROM mail_suppressions WHERE address_key > $1 ORDER BY address_key LIMIT $2",
                [.text(key), .bigint(Int64(max(0, limit)))],
                row: PostgresRecords.suppressionRecord
            )
        }
    }

    public func purgeMail(before: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(PostgresError) in
            try connection.run("DELETE FROM mail_outbox WHERE status <> 'pending' AND updated_at < $1", [.date(before)])
        }
    }
}
