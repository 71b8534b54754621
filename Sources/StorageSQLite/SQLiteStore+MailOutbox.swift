import Foundation
import Storage

/// The sending worker's calls commit without waiting for the disk (as the webhook worker's): a crash of the machine
/// can only make a message be sent again. Messages themselves are queued durably, with their change.
extension SQLiteStore {
    public func claimMail(owner: String, now: Date, leaseUntil: Date, limit: Int) throws(StorageError) -> [MailOutboxRecord] {
        try withConnectionDeferringDurability { connection throws(SQLiteError) in
            try connection.statement(
                """
                UPDATE mail_outbox SET lease_owner = ?1, lease_until = ?3, updated_at = ?2
                WHERE id IN (
                    SELECT id FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= ?2 AND lease_until <= ?2
                    ORDER BY next_attempt_at, id LIMIT ?4
                )
                RETURNING \(SQLiteRecords.mailColumns)
                """
            ).run([.text(owner), .date(now), .date(leaseUntil), .integer(Int64(max(0, limit)))], row: SQLiteRecords.mailRecord)
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
        try withConnectionDeferringDurability { connection throws(SQLiteError) in
            try connection.statement(
                """
                UPDATE mail_outbox SET status = ?3, next_attempt_at = ?4, last_error = ?5, last_reply_code = ?6, attempts = attempts + 1,
                    last_attempt_at = ?7, lease_owner = NULL, lease_until = 0, updated_at = ?7,
                    message = CASE WHEN ?3 = 'pending' THEN message END
                WHERE id = ?1 AND status = 'pending' AND lease_owner = ?2
                """
            ).run([
                .integer(id), .text(owner), .text(status.rawValue), next.map { .date($0) } ?? .null, error.map { .text($0) } ?? .null,
                replyCode.map { .integer(Int64($0)) } ?? .null, .date(now),
            ])
        }
    }

    public func mailOutbox(status: MailOutboxStatus?, after id: Int64, limit: Int) throws(StorageError) -> [MailOutboxRecord] {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                """
                SELECT \(SQLiteRecords.mailColumns.replacingOccurrences(of: "message_id, message,", with: "message_id, NULL,"))
                FROM mail_outbox WHERE id > ?1 AND (?2 IS NULL OR status = ?2) ORDER BY id LIMIT ?3
                """
            ).run([.integer(id), status.map { .text($0.rawValue) } ?? .null, .integer(Int64(max(0, limit)))], row: SQLiteRecords.mailRecord)
        }
    }

    public func mailOutboxCounts() throws(StorageError) -> [MailOutboxStatus: Int] {
        let rows = try withConnection { connection throws(SQLiteError) in
            try connection.statement("SELECT status, count(*) FROM mail_outbox GROUP BY status").run([]) { row throws(SQLiteError) in
                (MailOutboxStatus(rawValue: row.text(0)) ?? .dead, Int(row.integer(1)))
            }
        }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    public func mailSuppressions(after key: String, limit: Int) throws(StorageError) -> [MailSuppression] {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(SQLiteRecords.suppressionColumns) FROM mail_suppressions WHERE address_key > ?1 ORDER BY address_key LIMIT ?2"
            ).run([.text(key), .integer(Int64(max(0, limit)))], row: SQLiteRecords.suppressionRecord)
        }
    }

    public func purgeMail(before: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM mail_outbox WHERE status <> 'pending' AND updated_at < ?1").run([.date(before)])
        }
    }
}
