import Foundation

extension PostgresMigrations {
    /// Version 21 (issue 39): what a provider reported after the relay accepted a message, recorded on the message and
    /// found by its Message-ID (or its recipient, newest first); an address suppressed by a hard bounce or a complaint.
    /// Nullable columns and a new table: a 0.1.0 node still runs.
    static let mailBounceSchema = """
        ALTER TABLE mail_outbox ADD COLUMN bounce_kind text, ADD COLUMN bounced_at double precision, ADD COLUMN bounce_reason text;
        CREATE INDEX mail_outbox_by_message_id ON mail_outbox(message_id);
        CREATE INDEX mail_outbox_by_recipient ON mail_outbox(lower(recipient), id);
        CREATE TABLE mail_suppressions (
            address_key text PRIMARY KEY, address text NOT NULL, kind text NOT NULL, reason text NOT NULL, mail_id bigint,
            created_at double precision NOT NULL
        );
        """
}
