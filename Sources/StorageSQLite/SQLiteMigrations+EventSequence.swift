import Foundation

extension SQLiteMigrations {
    /// Version 24 (issue 44): the events table without `AUTOINCREMENT`, whose `sqlite_sequence` row every event
    /// written rewrote: a WAL frame of each sign-in's commit. An id still never repeats (`EventStore`): a new event's id
    /// is one above the larger of the newest stored id and `event_sequence.last_id`, which the purge raises to the newest
    /// id before it deletes (`SQLiteRecords.eventInsert`, `SQLiteStore.purgeEvents`), and which starts at the sequence
    /// number `AUTOINCREMENT` had handed out. The table is rebuilt under its own name, every event kept with its id.
    /// `webhook_deliveries` refers to it, so it is rebuilt too (first renamed, so that dropping the old events deletes
    /// none of its rows), keeping its ids, its `AUTOINCREMENT` and its sequence number.
    static let eventSequenceSchema = """
        ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_v23;
        ALTER TABLE events RENAME TO events_v23;
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            type TEXT NOT NULL,
            user_id BLOB,
            occurred_at REAL NOT NULL,
            data BLOB NOT NULL,
            uuid TEXT
        );
        INSERT INTO events (id, type, user_id, occurred_at, data, uuid) SELECT id, type, user_id, occurred_at, data, uuid FROM events_v23;
        CREATE TABLE event_sequence (last_id INTEGER NOT NULL);
        INSERT INTO event_sequence (last_id) SELECT max(
            coalesce((SELECT max(id) FROM events), 0), coalesce((SELECT max(seq) FROM sqlite_sequence WHERE name = 'events_v23'), 0)
        );
        CREATE TABLE webhook_deliveries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            event_id INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
            endpoint_id TEXT NOT NULL,
            user_id BLOB,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            queued_at REAL NOT NULL,
            next_attempt_at REAL,
            last_attempt_at REAL,
            last_status INTEGER,
            last_error TEXT,
            lease_owner TEXT,
            lease_until REAL NOT NULL,
            updated_at REAL NOT NULL,
            UNIQUE (event_id, endpoint_id)
        );
        INSERT INTO webhook_deliveries (
            id, event_id, endpoint_id, user_id, status, attempts, queued_at, next_attempt_at, last_attempt_at, last_status,
            last_error, lease_owner, lease_until, updated_at
        )
        SELECT id, event_id, endpoint_id, user_id, status, attempts, queued_at, next_attempt_at, last_attempt_at, last_status,
            last_error, lease_owner, lease_until, updated_at
        FROM webhook_deliveries_v23;
        DELETE FROM sqlite_sequence WHERE name = 'webhook_deliveries';
        INSERT INTO sqlite_sequence (name, seq) SELECT 'webhook_deliveries', seq FROM sqlite_sequence WHERE name = 'webhook_deliveries_v23';
        DROP TABLE webhook_deliveries_v23;
        DROP TABLE events_v23;
        CREATE INDEX events_by_time ON events(occurred_at);
        CREATE UNIQUE INDEX events_by_uuid ON events(uuid);
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries(endpoint_id, next_attempt_at)
            WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
        CREATE INDEX webhook_deliveries_chain ON webhook_deliveries(endpoint_id, user_id, event_id) WHERE status = 'pending';
        CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries(queued_at) WHERE status = 'pending' AND next_attempt_at IS NULL;
        CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries(status, id);
        """
}
