import Foundation
import Storage

extension SQLiteMigrations {
    /// The schema history, oldest first (see the type's comment): append new steps, never edit a released one.
    static let steps: [Step] = [
        Step(
            version: 1,
            sql: """
                CREATE TABLE users (
                    id BLOB PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL UNIQUE,
                    display_name TEXT NOT NULL,
                    created_at REAL NOT NULL
                );
                CREATE TABLE credentials (
                    id BLOB PRIMARY KEY NOT NULL,
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    public_key BLOB NOT NULL,
                    algorithm INTEGER NOT NULL,
                    sign_count INTEGER NOT NULL,
                    transports TEXT NOT NULL,
                    aaguid BLOB NOT NULL,
                    backup_eligible INTEGER NOT NULL,
                    backup_state INTEGER NOT NULL,
                    attestation_format TEXT NOT NULL,
                    attestation_summary TEXT NOT NULL,
                    name TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    last_used_at REAL,
                    clone_warning INTEGER NOT NULL,
                    backup_eligibility_changed INTEGER NOT NULL
                );
                CREATE INDEX credentials_by_user ON credentials(user_id, created_at, id);
                CREATE TABLE challenges (
                    challenge BLOB PRIMARY KEY NOT NULL,
                    ceremony TEXT NOT NULL,
                    user_id BLOB REFERENCES users(id) ON DELETE CASCADE,
                    user_verification TEXT NOT NULL,
                    context BLOB NOT NULL,
                    expires_at REAL NOT NULL
                );
                CREATE INDEX challenges_by_user ON challenges(user_id);
                CREATE INDEX challenges_by_expiry ON challenges(expires_at);
                CREATE TABLE sessions (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL
                );
                CREATE INDEX sessions_by_user ON sessions(user_id);
                CREATE INDEX sessions_by_expiry ON sessions(expires_at);
                """
        ),
        // Sign in with Apple: identities (deleted with their user), the nonce replay guard, and the revocation
        // queue, which deliberately has no reference to users so that it outlives a deleted account.
        Step(
            version: 2,
            sql: """
                CREATE TABLE apple_identities (
                    subject TEXT PRIMARY KEY NOT NULL,
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    email TEXT,
                    email_verified INTEGER NOT NULL,
                    is_private_email INTEGER NOT NULL,
                    email_disabled INTEGER NOT NULL,
                    real_user_status INTEGER,
                    transfer_subject TEXT,
                    encrypted_refresh_token BLOB,
                    refresh_token_client_id TEXT,
                    created_at REAL NOT NULL
                );
                CREATE INDEX apple_identities_by_user ON apple_identities(user_id, created_at, subject);
                CREATE TABLE apple_nonces (
                    hash BLOB PRIMARY KEY NOT NULL,
                    expires_at REAL NOT NULL
                );
                CREATE INDEX apple_nonces_by_expiry ON apple_nonces(expires_at);
                CREATE TABLE apple_revocations (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    encrypted_token BLOB NOT NULL,
                    client_id TEXT NOT NULL,
                    not_before REAL NOT NULL,
                    attempts INTEGER NOT NULL
                );
                CREATE INDEX apple_revocations_by_time ON apple_revocations(not_before, id);
                """
        ),
        // Sessions carry a public ID, how they were signed in (method, the passkey or the Apple identity, user
        // verification, auth_time), the user agent and their last use. The table is rebuilt (under its own name, so
        // that its schema text stays as written) so that the new columns get their constraints; existing sessions get
        // a random ID, the method their account can sign in with (a passkey when it has one), no passkey or
        // identity, unverified, and authenticatedAt = createdAt.
        Step(
            version: 3,
            sql: """
                ALTER TABLE sessions RENAME TO sessions_v2;
                CREATE TABLE sessions (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    id BLOB NOT NULL UNIQUE,
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    method TEXT NOT NULL,
                    credential_id BLOB,
                    apple_subject TEXT,
                    user_verified INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    authenticated_at REAL NOT NULL,
                    expires_at REAL NOT NULL,
                    user_agent TEXT,
                    last_used_at REAL
                );
                INSERT INTO sessions (
                    token_hash, id, user_id, method, credential_id, apple_subject, user_verified, created_at, authenticated_at,
                    expires_at, user_agent, last_used_at
                )
                SELECT token_hash, randomblob(16), user_id,
                    CASE WHEN EXISTS (SELECT 1 FROM credentials WHERE credentials.user_id = sessions_v2.user_id) THEN 'passkey' ELSE 'apple' END,
                    NULL, NULL, 0, created_at, created_at, expires_at, NULL, NULL
                FROM sessions_v2;
                DROP TABLE sessions_v2;
                CREATE INDEX sessions_by_user ON sessions(user_id, created_at, id);
                CREATE INDEX sessions_by_expiry ON sessions(expires_at);
                CREATE INDEX sessions_by_credential ON sessions(credential_id) WHERE credential_id IS NOT NULL;
                CREATE INDEX sessions_by_apple_subject ON sessions(apple_subject) WHERE apple_subject IS NOT NULL;
                """
        ),
        // The event outbox, written in the transaction of each change. No reference to users: an event outlives
        // its account (`user.deleted`). AUTOINCREMENT: an id is never handed out twice, even after a purge.
        Step(
            version: 4,
            sql: """
                CREATE TABLE events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    type TEXT NOT NULL,
                    user_id BLOB,
                    occurred_at REAL NOT NULL,
                    data BLOB NOT NULL
                );
                CREATE INDEX events_by_time ON events(occurred_at);
                CREATE INDEX events_by_user ON events(user_id, id);
                """
        ),
        // Webhooks: the endpoints that get deliveries (an endpoint's event types, or '*' for every type), and one
        // delivery per event and endpoint, created in the event's transaction and deleted with the event. A chain
        // (endpoint, user) has one due delivery at a time: the others wait with next_attempt_at NULL.
        Step(
            version: 5,
            sql: """
                CREATE TABLE webhook_subscriptions (
                    endpoint_id TEXT NOT NULL,
                    event_type TEXT NOT NULL,
                    PRIMARY KEY (endpoint_id, event_type)
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
                CREATE INDEX webhook_deliveries_due ON webhook_deliveries(endpoint_id, next_attempt_at)
                    WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
                CREATE INDEX webhook_deliveries_chain ON webhook_deliveries(endpoint_id, user_id, event_id) WHERE status = 'pending';
                CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries(queued_at) WHERE status = 'pending' AND next_attempt_at IS NULL;
                CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries(status, id);
                """
        ),
        // The account lifecycle. Users gain their StoreKit appAccountToken (a random version-4 UUID per existing
        // account, made here so that every node sees the same one), an email with its verification (an existing
        // account takes its first Apple identity's), and whether the display name is a default. Credentials keep the
        // user handle their authenticator holds (the owner's, until a merge moves them). Apple identities gain the
        // consent-revoked mark, the transfer time and the last sign-in; their refresh tokens move to a table of one
        // per (identity, client ID), which follows the identity when it is re-keyed and goes with it. Refused link
        // suggestions and the newest applied notification per Apple `sub` get tables of their own.
        Step(
            version: 6,
            sql: """
                ALTER TABLE users ADD COLUMN display_name_is_default INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE users ADD COLUMN app_account_token TEXT NOT NULL DEFAULT '';
                ALTER TABLE users ADD COLUMN email TEXT;
                ALTER TABLE users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0;
                UPDATE users SET app_account_token = lower(
                    hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
                    || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))
                );
                UPDATE users SET (email, email_verified) = (
                    SELECT email, email_verified FROM apple_identities
                    WHERE apple_identities.user_id = users.id AND email IS NOT NULL ORDER BY created_at, subject LIMIT 1
                ) WHERE EXISTS (SELECT 1 FROM apple_identities WHERE apple_identities.user_id = users.id AND email IS NOT NULL);
                CREATE UNIQUE INDEX users_by_app_account_token ON users(app_account_token);
                CREATE INDEX users_by_verified_email ON users(lower(email)) WHERE email_verified = 1;
                ALTER TABLE credentials ADD COLUMN user_handle BLOB NOT NULL DEFAULT x'';
                UPDATE credentials SET user_handle = user_id;
                ALTER TABLE apple_identities ADD COLUMN consent_revoked INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE apple_identities ADD COLUMN transferred_at REAL;
                ALTER TABLE apple_identities ADD COLUMN last_sign_in_at REAL;
                UPDATE apple_identities SET transferred_at = created_at WHERE transfer_subject IS NOT NULL;
                CREATE UNIQUE INDEX apple_identities_by_transfer_subject ON apple_identities(transfer_subject)
                    WHERE transfer_subject IS NOT NULL;
                CREATE TABLE apple_refresh_tokens (
                    subject TEXT NOT NULL REFERENCES apple_identities(subject) ON DELETE CASCADE ON UPDATE CASCADE,
                    client_id TEXT NOT NULL,
                    encrypted_token BLOB NOT NULL,
                    PRIMARY KEY (subject, client_id)
                );
                INSERT INTO apple_refresh_tokens (subject, client_id, encrypted_token)
                    SELECT subject, refresh_token_client_id, encrypted_refresh_token FROM apple_identities
                    WHERE encrypted_refresh_token IS NOT NULL AND refresh_token_client_id IS NOT NULL;
                ALTER TABLE apple_identities DROP COLUMN encrypted_refresh_token;
                ALTER TABLE apple_identities DROP COLUMN refresh_token_client_id;
                CREATE TABLE link_declines (
                    first_user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    second_user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    PRIMARY KEY (first_user_id, second_user_id)
                );
                CREATE INDEX link_declines_by_second ON link_declines(second_user_id);
                CREATE TABLE apple_notification_watermarks (
                    subject TEXT PRIMARY KEY NOT NULL,
                    event_at REAL NOT NULL,
                    expires_at REAL NOT NULL
                );
                CREATE INDEX apple_notification_watermarks_by_expiry ON apple_notification_watermarks(expires_at);
                """
        ),
        // Administration and recovery: single-use enrollment links and recovery codes (only their SHA-256), deleted with
        // their account; emails indexed for the admin API's search (usernames are, by their unique index).
        Step(
            version: 7,
            sql: """
                CREATE TABLE enrollment_tokens (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL
                );
                CREATE INDEX enrollment_tokens_by_user ON enrollment_tokens(user_id);
                CREATE INDEX enrollment_tokens_by_expiry ON enrollment_tokens(expires_at);
                CREATE TABLE recovery_codes (
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    code_hash BLOB NOT NULL,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (user_id, code_hash)
                );
                CREATE INDEX users_by_email ON users(lower(email)) WHERE email IS NOT NULL;
                """
        ),
        // The keys that sign access tokens: the public JWK in the clear, the private key sealed by the server.
        Step(
            version: 8,
            sql: """
                CREATE TABLE signing_keys (
                    id TEXT PRIMARY KEY NOT NULL,
                    algorithm TEXT NOT NULL,
                    public_jwk BLOB NOT NULL,
                    sealed_private_key BLOB NOT NULL,
                    created_at REAL NOT NULL,
                    activates_at REAL NOT NULL,
                    retires_at REAL,
                    expires_at REAL
                );
                """
        ),
        // The OpenID provider: authorization codes (only their SHA-256; a used one is kept until it expires, so that a
        // replay is recognised), grants (refresh-token families) and their refresh tokens, deleted with their account.
        Step(
            version: 9,
            sql: """
                CREATE TABLE oauth_codes (
                    code_hash BLOB PRIMARY KEY NOT NULL,
                    client_id TEXT NOT NULL,
                    redirect_uri TEXT NOT NULL,
                    code_challenge TEXT NOT NULL,
                    nonce TEXT,
                    scope TEXT NOT NULL,
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    session_id BLOB NOT NULL,
                    authenticated_at REAL NOT NULL,
                    amr TEXT NOT NULL,
                    grant_id BLOB NOT NULL,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL,
                    used_at REAL
                );
                CREATE INDEX oauth_codes_by_user ON oauth_codes(user_id);
                CREATE INDEX oauth_codes_by_expiry ON oauth_codes(expires_at);
                CREATE TABLE oauth_grants (
                    id BLOB PRIMARY KEY NOT NULL,
                    client_id TEXT NOT NULL,
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    session_id BLOB NOT NULL,
                    scope TEXT NOT NULL,
                    authenticated_at REAL NOT NULL,
                    amr TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL
                );
                CREATE INDEX oauth_grants_by_user ON oauth_grants(user_id);
                CREATE INDEX oauth_grants_by_expiry ON oauth_grants(expires_at);
                CREATE TABLE oauth_refresh_tokens (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    grant_id BLOB NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
                    created_at REAL NOT NULL,
                    used_at REAL
                );
                CREATE INDEX oauth_refresh_tokens_by_grant ON oauth_refresh_tokens(grant_id);
                """
        ),
        // Usernames compared case-insensitively: each account's name key (`UserRecord.nameKey`, NFKC then lowercased),
        // unique. Where two names have one key, the oldest account keeps its name and each later one gets a suffixed
        // name (`-2`, `-3` …) and a `user.updated` event (`NameKeyMigration`).
        Step(
            version: 10,
            sql: """
                ALTER TABLE users ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
                """,
            rewrite: { records, now throws(StorageError) in
                let accounts = try records.run { connection throws(SQLiteError) in
                    try connection.statement("SELECT id, name, created_at FROM users").run([]) { row throws(SQLiteError) in
                        NameKeyMigration.Account(id: row.blob(0), name: row.text(1), createdAt: row.date(2))
                    }
                }
                for row in NameKeyMigration(accounts: accounts).rows {
                    try records.run { connection throws(SQLiteError) in
                        try connection.statement("UPDATE users SET name = ?2, name_key = ?3 WHERE id = ?1")
                            .run([.blob(row.id), .text(row.name), .text(row.nameKey)])
                    }
                    if row.renamed {
                        let data = NameKeyMigration.renameEventData(userID: row.id)
                        try records.appendLegacyEvent(type: NameKeyMigration.renameEventType, userID: row.id, occurredAt: now, data: data)
                    }
                }
                try records.run { connection throws(SQLiteError) in
                    try connection.execute("CREATE UNIQUE INDEX users_by_name_key ON users(name_key);")
                }
            }
        ),
        // Challenges are written and deleted once per ceremony, so each b-tree they are in costs every ceremony: the
        // table becomes WITHOUT ROWID (its rows live in the primary key's b-tree, not in a rowid table beside it), and
        // the user index holds only the challenges that have a user (a discoverable sign-in's has none; the cascade
        // from users still finds the rest through it). Four b-trees per sign-in challenge become two. The table is
        // rebuilt under its own name, so that its schema text stays as written; outstanding challenges are kept.
        Step(
            version: 11,
            sql: """
                ALTER TABLE challenges RENAME TO challenges_v10;
                CREATE TABLE challenges (
                    challenge BLOB PRIMARY KEY NOT NULL,
                    ceremony TEXT NOT NULL,
                    user_id BLOB REFERENCES users(id) ON DELETE CASCADE,
                    user_verification TEXT NOT NULL,
                    context BLOB NOT NULL,
                    expires_at REAL NOT NULL
                ) WITHOUT ROWID;
                INSERT INTO challenges (challenge, ceremony, user_id, user_verification, context, expires_at)
                SELECT challenge, ceremony, user_id, user_verification, context, expires_at FROM challenges_v10;
                DROP TABLE challenges_v10;
                CREATE INDEX challenges_by_user ON challenges(user_id) WHERE user_id IS NOT NULL;
                CREATE INDEX challenges_by_expiry ON challenges(expires_at);
                """
        ),
        // Events get an identity that never repeats (`NewEvent.id`, a version-7 UUID), unique: a rolled-back or restored
        // database hands the sequence numbers out again. Nullable: the events written before, and those a 0.1.0 node
        // writes during a rolling upgrade, keep the ID they were first sent under (`evt_<id>`, `EventRecord.publicID`).
        Step(
            version: 12,
            sql: """
                ALTER TABLE events ADD COLUMN uuid TEXT;
                CREATE UNIQUE INDEX events_by_uuid ON events(uuid);
                """
        ),
        // Accounts carry the app's own user id (`UserRecord.externalID`), unique where present. A 0.1.0 node of a
        // rolling upgrade names its columns, so it neither writes nor clears the new one.
        Step(
            version: 13,
            sql: """
                ALTER TABLE users ADD COLUMN external_id TEXT;
                CREATE UNIQUE INDEX users_by_external_id ON users(external_id) WHERE external_id IS NOT NULL;
                """
        ),
        // Imported password hashes (`PasswordHashRecord`), at most one per account, a bridge to passkeys.
        Step(
            version: 14,
            sql: """
                CREATE TABLE password_hashes (
                    user_id BLOB PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    hash TEXT NOT NULL,
                    created_at REAL NOT NULL
                ) WITHOUT ROWID;
                """
        ),
        // Identities at OpenID providers (Google, any OpenID Connect issuer), keyed by issuer and subject, deleted
        // with their account.
        Step(
            version: 15,
            sql: """
                CREATE TABLE federated_identities (
                    issuer TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    provider TEXT NOT NULL,
                    email TEXT,
                    email_verified INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    last_sign_in_at REAL,
                    PRIMARY KEY (issuer, subject)
                ) WITHOUT ROWID;
                CREATE INDEX federated_identities_by_user ON federated_identities(user_id, created_at);
                """
        ),
        // Disabled accounts and the app's metadata on an account (issue 43).
        Step(
            version: 16,
            sql: """
                ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE users ADD COLUMN metadata TEXT;
                """
        ),
        // The mail outbox (issue 39): a message queued with the change that causes it, its rendered text kept only
        // while it is pending, claimed with a lease by the sending worker.
        Step(
            version: 17,
            sql: """
                CREATE TABLE mail_outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, recipient TEXT NOT NULL, user_id BLOB,
                    message_id TEXT NOT NULL, message BLOB, status TEXT NOT NULL, attempts INTEGER NOT NULL, created_at REAL NOT NULL,
                    next_attempt_at REAL, last_attempt_at REAL, last_error TEXT, last_reply_code INTEGER, lease_owner TEXT,
                    lease_until REAL NOT NULL, updated_at REAL NOT NULL
                );
                CREATE INDEX mail_outbox_due ON mail_outbox(next_attempt_at) WHERE status = 'pending';
                CREATE INDEX mail_outbox_by_status ON mail_outbox(status, id);
                CREATE INDEX mail_outbox_done ON mail_outbox(updated_at) WHERE status <> 'pending';
                """
        ),
        // Look-alike usernames (issue 43): each name's confusable skeleton (`UserRecord.nameSkeleton`), indexed and
        // not unique, since names registered before may share one.
        Step(
            version: 18,
            sql: """
                ALTER TABLE users ADD COLUMN name_skeleton TEXT;
                CREATE INDEX users_by_name_skeleton ON users(name_skeleton);
                """,
            rewrite: { records, _ throws(StorageError) in
                let names = try records.run { connection throws(SQLiteError) in
                    try connection.statement("SELECT id, name FROM users").run([]) { row throws(SQLiteError) in (row.blob(0), row.text(1)) }
                }
                for (id, name) in names {
                    try records.run { connection throws(SQLiteError) in
                        try connection.statement("UPDATE users SET name_skeleton = ?2 WHERE id = ?1")
                            .run([.blob(id), .text(UserRecord.nameSkeleton(of: name))])
                    }
                }
            }
        ),
        // Tokens sent by email (issue 39): pending address verifications (a link and a code) and recovery links, one of
        // each purpose per account, only their hashes.
        Step(
            version: 19,
            sql: """
                CREATE TABLE email_tokens (
                    token_hash BLOB PRIMARY KEY NOT NULL, purpose TEXT NOT NULL, user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    address TEXT NOT NULL, code_hash BLOB, attempts INTEGER NOT NULL, created_at REAL NOT NULL, expires_at REAL NOT NULL
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX email_tokens_by_user ON email_tokens(user_id, purpose);
                CREATE INDEX email_tokens_by_expiry ON email_tokens(expires_at);
                """
        ),
        // A session records the identity at an OpenID provider that signed it in, so that unlinking the identity ends
        // it, and the session that made its hand-off link, with which it ends (issue 43 item 4, issue 37). Nullable:
        // a 0.1.0 node of a rolling upgrade names its columns, so it neither writes nor reads them.
        Step(
            version: 20,
            sql: """
                ALTER TABLE sessions ADD COLUMN federated_issuer TEXT;
                ALTER TABLE sessions ADD COLUMN federated_subject TEXT;
                ALTER TABLE sessions ADD COLUMN parent_id BLOB;
                CREATE INDEX sessions_by_federated_identity ON sessions(federated_issuer, federated_subject) WHERE federated_issuer IS NOT NULL;
                CREATE INDEX sessions_by_parent ON sessions(parent_id) WHERE parent_id IS NOT NULL;
                """
        ),
        // Bounces and complaints reported after the relay accepted a message, and suppressed addresses (issue 39).
        Step(version: 21, sql: Self.mailBounceSchema),
        // No query reads events by user (the outbox is read by id and purged by time; 0.1.0's queries too), yet every
        // event written updated this index: a page per sign-in's commit (issue 44).
        Step(version: 22, sql: "DROP INDEX events_by_user;"),
        // No query reads sessions by passkey (a deleted passkey's sessions are found by user, `sessions_by_user`), yet
        // every passkey session written updated this index: about two WAL frames per sign-in's commit (issue 44).
        Step(version: 23, sql: "DROP INDEX sessions_by_credential;"),
        Step(version: 24, sql: Self.eventSequenceSchema),
    ]
}
