import Foundation

extension SQLiteMigrations {
    /// Version 21 (issue 39): what a provider reported after the relay accepted a message, recorded on the message and
    /// found by its Message-ID (or its recipient, newest first); an address suppressed by a hard bounce or a complaint.
    static let mailBounceSchema = """
        ALTER TABLE mail_outbox ADD COLUMN bounce_kind TEXT;
        ALTER TABLE mail_outbox ADD COLUMN bounced_at REAL;
        ALTER TABLE mail_outbox ADD COLUMN bounce_reason TEXT;
        CREATE INDEX mail_outbox_by_message_id ON mail_outbox(message_id);
        CREATE INDEX mail_outbox_by_recipient ON mail_outbox(lower(recipient), id);
        CREATE TABLE mail_suppressions (
            address_key TEXT PRIMARY KEY NOT NULL, address TEXT NOT NULL, kind TEXT NOT NULL, reason TEXT NOT NULL, mail_id INTEGER,
            created_at REAL NOT NULL
        ) WITHOUT ROWID;
        """
}
