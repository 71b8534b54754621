import Foundation
import Storage

extension SQLiteRecords {
    static let suppressionColumns = "address, kind, reason, mail_id, created_at"

    /// The outbox's columns with NULL for the rendered message.
    private static var listedMailColumns: String { mailColumns.replacingOccurrences(of: "message_id, message,", with: "message_id, NULL,") }

    func mail(messageID: String) throws(StorageError) -> MailOutboxRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.listedMailColumns) FROM mail_outbox WHERE message_id = ?1 ORDER BY id DESC LIMIT 1")
                .run([.text(messageID)], row: Self.mailRecord).first
        }
    }

    func latestSentMail(recipient: String) throws(StorageError) -> MailOutboxRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(Self.listedMailColumns) FROM mail_outbox WHERE lower(recipient) = ?1 AND status = 'sent' ORDER BY id DESC LIMIT 1"
            ).run([.text(MailSuppression.key(recipient))], row: Self.mailRecord).first
        }
    }

    func recordMailBounce(id: Int64, _ bounce: MailBounce) throws(StorageError) -> Bool {
        try validate { () throws(StorageError) in try bounce.validate() }
        return try run { connection throws(SQLiteError) in
            try connection.statement("UPDATE mail_outbox SET bounce_kind = ?2, bounced_at = ?3, bounce_reason = ?4 WHERE id = ?1")
                .run([.integer(id), .text(bounce.kind.rawValue), .date(bounce.at), .text(bounce.reason)])
        } == 1
    }

    func suppressMail(_ suppression: MailSuppression) throws(StorageError) -> Bool {
        try validate { () throws(StorageError) in try suppression.validate() }
        return try run { connection throws(SQLiteError) in
            try connection.statement(
                "INSERT INTO mail_suppressions (address_key, \(Self.suppressionColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING"
            ).run([
                .text(MailSuppression.key(suppression.address)), .text(suppression.address), .text(suppression.kind.rawValue),
                .text(suppression.reason), suppression.mailID.map { .integer($0) } ?? .null, .date(suppression.createdAt),
            ])
        } == 1
    }

    func mailSuppression(address: String) throws(StorageError) -> MailSuppression? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.suppressionColumns) FROM mail_suppressions WHERE address_key = ?1")
                .run([.text(MailSuppression.key(address))], row: Self.suppressionRecord).first
        }
    }

    func deleteMailSuppression(address: String) throws(StorageError) -> MailSuppression? {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM mail_suppressions WHERE address_key = ?1 RETURNING \(Self.suppressionColumns)")
                .run([.text(MailSuppression.key(address))], row: Self.suppressionRecord).first
        }
    }

    static func suppressionRecord(_ row: SQLiteRow) throws(SQLiteError) -> MailSuppression {
        MailSuppression(
            address: row.text(0),
            kind: MailBounceKind(rawValue: row.text(1)) ?? .hard,
            reason: row.text(2),
            mailID: row.isNull(3) ? nil : row.integer(3),
            createdAt: row.date(4)
        )
    }
}
