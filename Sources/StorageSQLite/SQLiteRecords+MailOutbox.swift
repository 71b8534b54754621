import Foundation
import Storage

extension SQLiteRecords {
    static let mailColumns = """
        id, kind, recipient, user_id, message_id, message, status, attempts, created_at, next_attempt_at, last_attempt_at, last_error,
        last_reply_code, lease_owner, lease_until, updated_at, bounce_kind, bounced_at, bounce_reason
        """

    func enqueueMail(_ mail: NewMail) throws(StorageError) -> Int64 {
        try validate { () throws(StorageError) in try mail.validate() }
        let id = try run { connection throws(SQLiteError) -> Int64? in
            let inserted = try connection.statement(
                """
                INSERT INTO mail_outbox (kind, recipient, user_id, message_id, message, status, attempts, created_at, next_attempt_at,
                    lease_until, updated_at)
                SELECT ?1, ?2, ?3, ?4, CASE WHEN suppressed THEN NULL ELSE ?5 END, CASE WHEN suppressed THEN 'suppressed' ELSE 'pending' END,
                    0, ?6, CASE WHEN suppressed THEN NULL ELSE ?6 END, 0, ?6
                FROM (SELECT EXISTS (SELECT 1 FROM mail_suppressions WHERE address_key = ?7) AS suppressed)
                """
            ).run([
                .text(mail.kind), .text(mail.recipient), mail.userID.map { .blob($0) } ?? .null, .text(mail.messageID), .blob(mail.message),
                .date(mail.createdAt), .text(MailSuppression.key(mail.recipient)),
            ])
            return inserted == 1 ? connection.lastInsertedRowID : nil
        }
        guard let id else { throw StorageError(.unavailable, "the message was not queued") }
        return id
    }

    static func mailRecord(_ row: SQLiteRow) throws(SQLiteError) -> MailOutboxRecord {
        MailOutboxRecord(
            id: row.integer(0),
            kind: row.text(1),
            recipient: row.text(2),
            userID: row.isNull(3) ? nil : row.blob(3),
            messageID: row.text(4),
            message: row.isNull(5) ? nil : row.blob(5),
            status: MailOutboxStatus(rawValue: row.text(6)) ?? .dead,
            attempts: Int(row.integer(7)),
            createdAt: row.date(8),
            nextAttemptAt: row.isNull(9) ? nil : row.date(9),
            lastAttemptAt: row.isNull(10) ? nil : row.date(10),
            lastError: row.isNull(11) ? nil : row.text(11),
            lastReplyCode: row.isNull(12) ? nil : Int(row.integer(12)),
            leaseOwner: row.isNull(13) ? nil : row.text(13),
            leaseUntil: row.date(14),
            updatedAt: row.date(15),
            bounce: row.isNull(16)
                ? nil : MailBounce(kind: MailBounceKind(rawValue: row.text(16)) ?? .hard, at: row.date(17), reason: row.text(18))
        )
    }
}
