import Foundation
import Storage

extension PostgresRecords {
    static let mailColumns = """
        id, kind, recipient, user_id, message_id, message, status, attempts, created_at, next_attempt_at, last_attempt_at, last_error,
        last_reply_code, lease_owner, lease_until, updated_at, bounce_kind, bounced_at, bounce_reason
        """

    func enqueueMail(_ mail: NewMail) throws(StorageError) -> Int64 {
        try validate { () throws(StorageError) in try mail.validate() }
        let ids = try run { connection throws(PostgresError) in
            try connection.run(
                """
                INSERT INTO mail_outbox (kind, recipient, user_id, message_id, message, status, attempts, created_at, next_attempt_at,
                    lease_until, updated_at)
                SELECT $1::text, $2::text, $3::bytea, $4::text, CASE WHEN suppressed THEN NULL ELSE $5::bytea END,
                    CASE WHEN suppressed THEN 'suppressed' ELSE 'pending' END, 0, $6::float8, CASE WHEN suppressed THEN NULL ELSE $6::float8 END, 0,
                    $6::float8
                FROM (SELECT EXISTS (SELECT 1 FROM mail_suppressions WHERE address_key = $7::text) AS suppressed) AS recipient
                RETURNING id
                """,
                [
                    .text(mail.kind), .text(mail.recipient), .optional(mail.userID, PostgresValue.bytea), .text(mail.messageID), .bytea(mail.message),
                    .date(mail.createdAt), .text(MailSuppression.key(mail.recipient)),
                ]
            ) { row throws(PostgresError) in try row.integer(0) }
        }
        guard let id = ids.first else { throw StorageError(.unavailable, "the message was not queued") }
        return id
    }

    static func mailRecord(_ row: PostgresRow) throws(PostgresError) -> MailOutboxRecord {
        MailOutboxRecord(
            id: try row.integer(0),
            kind: row.text(1),
            recipient: row.text(2),
            userID: row.isNull(3) ? nil : row.bytes(3),
            messageID: row.text(4),
            message: row.isNull(5) ? nil : row.bytes(5),
            status: MailOutboxStatus(rawValue: row.text(6)) ?? .dead,
            attempts: Int(try row.integer(7)),
            createdAt: try row.date(8),
            nextAttemptAt: row.isNull(9) ? nil : try row.date(9),
            lastAttemptAt: row.isNull(10) ? nil : try row.date(10),
            lastError: row.isNull(11) ? nil : row.text(11),
            lastReplyCode: row.isNull(12) ? nil : Int(try row.integer(12)),
            leaseOwner: row.isNull(13) ? nil : row.text(13),
            leaseUntil: try row.date(14),
            updatedAt: try row.date(15),
            bounce: row.isNull(16)
                ? nil : MailBounce(kind: MailBounceKind(rawValue: row.text(16)) ?? .hard, at: try row.date(17), reason: row.text(18))
        )
    }
}
