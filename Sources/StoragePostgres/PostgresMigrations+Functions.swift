import Foundation

extension PostgresMigrations {
    /// Version 24 (issue 42): the ceremonies' statements as PL/pgSQL functions, which PostgreSQL plans once per
    /// server connection and keeps: through a transaction-mode pooler, where statements are sent unnamed, the client
    /// sends a small call instead of a large statement parsed and planned every time. A later step changes a function
    /// by `CREATE OR REPLACE` (or drops it). Each function runs with a fixed `search_path`, the schema the migration
    /// created it in (then `pg_temp`), so that no object of another schema on a caller's path can stand in for a
    /// table, and with the server's bound of a lock wait below a call's 5 s (`lock_timeout`, also through a transaction
    /// pooler, where the connection's own is not set; a function's setting wins over the caller's, so it is the bound
    /// of the default call timeout, the only one their callers use, which `PostgresLockTimeoutTests` pins). A 0.1.0
    /// node calls no function and still runs.
    ///
    /// `passkeyd_complete_authentication` (`CeremonyStore.completeAuthentication`): the statement the ceremony sent
    /// before (data-modifying CTEs): spends the sealed challenge (when one is given), records the counter and flags only
    /// when the counter increased (§7.2 step 23, against the row as updated under its lock) and the user is enabled,
    /// starts the session, appends the events under the user's row lock and queues their webhook deliveries, as
    /// `PostgresRecords.appendingEvents` does. Returns what happened: `recorded`, or why nothing was (the spent
    /// challenge stays spent), found in the same call. Its plan is generic (`plan_cache_mode`): made once per
    /// server connection, whatever the planner would estimate of the events' arrays (a custom plan is made anew for
    /// every call).
    ///
    /// `passkeyd_complete_registration` (`CeremonyStore.completeRegistration`): the registration's statement, the new
    /// account (when there is one), passkey, session, events and notices, and how many sessions it started (0: the
    /// user is disabled, nothing was written).
    ///
    /// `passkeyd_credential_with_owner` (the sign-in's first read through a pooler until step 28): the
    /// credential's row and its owner's, as whole rows, so that a column a later step adds needs no new function; the
    /// caller picks the columns it reads.
    static let ceremonyFunctionsSchema = """
        CREATE OR REPLACE FUNCTION passkeyd_complete_authentication(
            p_spent_challenge bytea, p_spent_ceremony text, p_spent_user_verification text, p_spent_context bytea,
            p_spent_expires_at double precision,
            p_credential_id bytea, p_user_id bytea, p_sign_count bigint, p_backup_eligible boolean, p_backup_state boolean,
            p_used_at double precision, p_clone_warning boolean, p_backup_eligibility_changed boolean,
            p_token_hash bytea, p_session_id bytea, p_method text, p_session_credential_id bytea, p_apple_subject text,
            p_user_verified boolean, p_created_at double precision, p_authenticated_at double precision,
            p_expires_at double precision, p_user_agent text, p_last_used_at double precision, p_federated_issuer text,
            p_federated_subject text, p_parent_id bytea,
            p_event_types text[], p_event_user_ids bytea[], p_event_occurred_at double precision[], p_event_data bytea[],
            p_event_uuids text[]
        ) RETURNS text LANGUAGE plpgsql AS $body$
        DECLARE
            started_count bigint;
            spent_count bigint;
        BEGIN
            -- One statement, as the ceremony's was before this function: one snapshot, one plan. The spent challenge
            -- first: of concurrent inserts of the same bytes, on any nodes, one inserts them and the others wait for
            -- its commit and insert nothing; nothing else is written without it. §7.2 step 23 against the counter
            -- stored now: the row is updated only when the counter increased (the row lock orders concurrent
            -- sign-ins on any nodes); the session is inserted only when the row was updated, the user's row locked
            -- and the events appended only when the session was; a duplicate token fails all of them.
            WITH spent AS (
                INSERT INTO challenges (challenge, ceremony, user_verification, context, expires_at)
                SELECT p_spent_challenge, p_spent_ceremony, p_spent_user_verification, p_spent_context, p_spent_expires_at
                WHERE p_spent_challenge IS NOT NULL
                ON CONFLICT (challenge) DO NOTHING RETURNING 1
            ), recorded AS (
                UPDATE credentials SET sign_count = p_sign_count, backup_eligible = p_backup_eligible,
                    backup_state = p_backup_state, last_used_at = p_used_at,
                    clone_warning = (clone_warning OR p_clone_warning),
                    backup_eligibility_changed = (backup_eligibility_changed OR p_backup_eligibility_changed)
                WHERE id = p_credential_id AND user_id = p_user_id
                    AND (sign_count < p_sign_count OR (p_sign_count = 0 AND sign_count = 0))
                    AND (p_spent_challenge IS NULL OR EXISTS (SELECT 1 FROM spent))
                    AND NOT EXISTS (SELECT 1 FROM users WHERE id = p_user_id AND disabled)
                RETURNING user_id
            ), started AS (
                INSERT INTO sessions (
                    token_hash, id, user_id, method, credential_id, apple_subject, user_verified, created_at,
                    authenticated_at, expires_at, user_agent, last_used_at, federated_issuer, federated_subject, parent_id
                )
                SELECT p_token_hash, p_session_id, p_user_id, p_method, p_session_credential_id, p_apple_subject,
                    p_user_verified, p_created_at, p_authenticated_at, p_expires_at, p_user_agent, p_last_used_at,
                    p_federated_issuer, p_federated_subject, p_parent_id
                FROM recorded RETURNING user_id
            ), locked AS (
                -- The user's row lock before the events, until the commit: one user's event ids follow commit order.
                SELECT id FROM users
                WHERE id = p_user_id AND cardinality(p_event_types) > 0 AND EXISTS (SELECT 1 FROM started)
                FOR NO KEY UPDATE
            ), appended AS (
                INSERT INTO events (type, user_id, occurred_at, data, uuid)
                SELECT event.type, event.user_id, event.occurred_at, event.data, event.uuid
                FROM unnest(p_event_types, p_event_user_ids, p_event_occurred_at, p_event_data, p_event_uuids)
                    WITH ORDINALITY AS event(type, user_id, occurred_at, data, uuid, position)
                    CROSS JOIN locked
                ORDER BY event.position
                RETURNING id, type, user_id, occurred_at
            ), \(queuingDeliveries)
            )
            SELECT (SELECT count(*) FROM started), (SELECT count(*) FROM spent) INTO started_count, spent_count;
            IF p_spent_challenge IS NOT NULL AND spent_count = 0 THEN
                RETURN 'challenge_spent';
            ELSIF started_count = 1 THEN
                RETURN 'recorded';
            ELSIF EXISTS (SELECT 1 FROM users WHERE id = p_user_id AND disabled) THEN
                RETURN 'user_disabled';
            ELSIF NOT EXISTS (SELECT 1 FROM credentials WHERE id = p_credential_id AND user_id = p_user_id) THEN
                RETURN 'credential_missing';
            END IF;
            RETURN 'counter_not_increased';
        END
        $body$;
        CREATE OR REPLACE FUNCTION passkeyd_credential_with_owner(p_id bytea)
        RETURNS TABLE (credential credentials, owner users) LANGUAGE plpgsql STABLE AS $body$
        BEGIN
            RETURN QUERY SELECT c, u FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.id = p_id;
        END
        $body$;
        CREATE OR REPLACE FUNCTION passkeyd_complete_registration(
        \(registrationParameters)
        ) RETURNS bigint LANGUAGE plpgsql AS $body$
        DECLARE
            started_count bigint;
        BEGIN
        \(registrationStatements)
            RETURN started_count;
        END
        $body$;
        DO $fix$ BEGIN
            EXECUTE format('ALTER FUNCTION passkeyd_complete_authentication SET search_path = %I, pg_temp', current_schema());
            EXECUTE format('ALTER FUNCTION passkeyd_credential_with_owner SET search_path = %I, pg_temp', current_schema());
            EXECUTE format('ALTER FUNCTION passkeyd_complete_registration SET search_path = %I, pg_temp', current_schema());
        END $fix$;
        ALTER FUNCTION passkeyd_complete_authentication SET lock_timeout = '4500ms';
        ALTER FUNCTION passkeyd_complete_authentication SET plan_cache_mode = force_generic_plan;
        ALTER FUNCTION passkeyd_credential_with_owner SET lock_timeout = '4500ms';
        ALTER FUNCTION passkeyd_complete_registration SET lock_timeout = '4500ms';
        ALTER FUNCTION passkeyd_complete_registration SET plan_cache_mode = force_generic_plan;
        """

    /// Both ceremony functions' CTE `queued`: the webhook deliveries of the `appended` events, as
    /// `PostgresRecords.queuingWebhookDeliveries` queues them. Written out here, not taken from that constant, so that
    /// this step's text never changes with later code.
    private static let queuingDeliveries = """
        queued AS (
            INSERT INTO webhook_deliveries (
                event_id, endpoint_id, user_id, status, attempts, queued_at, next_attempt_at, lease_until, updated_at
            )
            SELECT a.id, s.endpoint_id, a.user_id, 'pending', 0, a.occurred_at,
                CASE WHEN a.user_id IS NULL OR (
                    row_number() OVER (PARTITION BY s.endpoint_id, a.user_id ORDER BY a.id) = 1 AND NOT EXISTS (
                        SELECT 1 FROM webhook_deliveries p
                        WHERE p.endpoint_id = s.endpoint_id AND p.user_id = a.user_id AND p.status = 'pending'
                    )
                ) THEN a.occurred_at END,
                0, a.occurred_at
            FROM appended a JOIN webhook_subscriptions s ON s.event_type = a.type OR s.event_type = '*'
            ORDER BY a.id, s.endpoint_id COLLATE "C"
        """

    /// The registration function's arguments (steps 24 and 28): whether the account is new, its columns, the passkey's
    /// and the session's but their user, the events, then the notices.
    static let registrationParameters = """
            p_new_user boolean, p_user_id bytea, p_name text, p_display_name text, p_user_created_at double precision,
            p_display_name_is_default boolean, p_app_account_token text, p_email text, p_email_verified boolean,
            p_name_key text, p_external_id text, p_disabled boolean, p_metadata text, p_name_skeleton text,
            p_credential_id bytea, p_public_key bytea, p_algorithm bigint, p_sign_count bigint, p_transports text,
            p_aaguid bytea, p_backup_eligible boolean, p_backup_state boolean, p_attestation_format text,
            p_attestation_summary text, p_credential_name text, p_credential_created_at double precision,
            p_credential_last_used_at double precision, p_clone_warning boolean, p_backup_eligibility_changed boolean,
            p_user_handle bytea,
            p_token_hash bytea, p_session_id bytea, p_method text, p_session_credential_id bytea, p_apple_subject text,
            p_user_verified boolean, p_created_at double precision, p_authenticated_at double precision,
            p_expires_at double precision, p_user_agent text, p_last_used_at double precision, p_federated_issuer text,
            p_federated_subject text, p_parent_id bytea,
            p_event_types text[], p_event_user_ids bytea[], p_event_occurred_at double precision[], p_event_data bytea[],
            p_event_uuids text[],
            p_mail_kinds text[], p_mail_recipients text[], p_mail_user_ids bytea[], p_mail_message_ids text[],
            p_mail_messages bytea[], p_mail_created_at double precision[], p_mail_address_keys text[]
        """

    /// The registration function's statement (steps 24 and 28): one statement, the chain of common table expressions
    /// step 24 wrote, which counts the sessions it started into `started_count`.
    static let registrationStatements = """
            -- One statement, as the ceremony's was before this function. An existing user that is disabled gets
            -- neither the credential nor the session (one snapshot for both); the events and the notices are written
            -- only with the session. A new account's row is this statement's own: no other transaction can append
            -- its events before the commit, so only an existing account's row is locked.
            WITH created AS (
                INSERT INTO users (
                    id, name, display_name, created_at, display_name_is_default, app_account_token, email, email_verified,
                    name_key, external_id, disabled, metadata, name_skeleton
                )
                SELECT p_user_id, p_name, p_display_name, p_user_created_at, p_display_name_is_default,
                    p_app_account_token, p_email, p_email_verified, p_name_key, p_external_id, p_disabled, p_metadata,
                    p_name_skeleton
                WHERE p_new_user
            ), added AS (
                INSERT INTO credentials (
                    id, user_id, public_key, algorithm, sign_count, transports, aaguid, backup_eligible, backup_state,
                    attestation_format, attestation_summary, name, created_at, last_used_at, clone_warning,
                    backup_eligibility_changed, user_handle
                )
                SELECT p_credential_id, p_user_id, p_public_key, p_algorithm, p_sign_count, p_transports, p_aaguid,
                    p_backup_eligible, p_backup_state, p_attestation_format, p_attestation_summary, p_credential_name,
                    p_credential_created_at, p_credential_last_used_at, p_clone_warning, p_backup_eligibility_changed,
                    p_user_handle
                WHERE NOT EXISTS (SELECT 1 FROM users WHERE id = p_user_id AND disabled)
            ), started AS (
                INSERT INTO sessions (
                    token_hash, id, user_id, method, credential_id, apple_subject, user_verified, created_at,
                    authenticated_at, expires_at, user_agent, last_used_at, federated_issuer, federated_subject, parent_id
                )
                SELECT p_token_hash, p_session_id, p_user_id, p_method, p_session_credential_id, p_apple_subject,
                    p_user_verified, p_created_at, p_authenticated_at, p_expires_at, p_user_agent, p_last_used_at,
                    p_federated_issuer, p_federated_subject, p_parent_id
                WHERE NOT EXISTS (SELECT 1 FROM users WHERE id = p_user_id AND disabled)
                RETURNING user_id
            ), locked AS (
                SELECT id FROM users
                WHERE id = p_user_id AND NOT p_new_user AND cardinality(p_event_types) > 0
                    AND EXISTS (SELECT 1 FROM started)
                FOR NO KEY UPDATE
            ), appended AS (
                INSERT INTO events (type, user_id, occurred_at, data, uuid)
                SELECT event.type, event.user_id, event.occurred_at, event.data, event.uuid
                FROM unnest(p_event_types, p_event_user_ids, p_event_occurred_at, p_event_data, p_event_uuids)
                    WITH ORDINALITY AS event(type, user_id, occurred_at, data, uuid, position)
                WHERE p_new_user OR EXISTS (SELECT 1 FROM locked)
                ORDER BY event.position
                RETURNING id, type, user_id, occurred_at
            ), \(queuingDeliveries)
            ), mailed AS (
                -- A suppressed recipient's notice is recorded as suppressed, without its message (`enqueueMail`).
                INSERT INTO mail_outbox (
                    kind, recipient, user_id, message_id, message, status, attempts, created_at, next_attempt_at,
                    lease_until, updated_at
                )
                SELECT mail.kind, mail.recipient, mail.user_id, mail.message_id,
                    CASE WHEN mail.suppressed THEN NULL ELSE mail.message END,
                    CASE WHEN mail.suppressed THEN 'suppressed' ELSE 'pending' END, 0, mail.created_at,
                    CASE WHEN mail.suppressed THEN NULL ELSE mail.created_at END, 0, mail.created_at
                FROM (
                    SELECT m.*, EXISTS (SELECT 1 FROM mail_suppressions WHERE address_key = m.address_key) AS suppressed
                    FROM unnest(p_mail_kinds, p_mail_recipients, p_mail_user_ids, p_mail_message_ids, p_mail_messages,
                        p_mail_created_at, p_mail_address_keys)
                        WITH ORDINALITY AS m(kind, recipient, user_id, message_id, message, created_at, address_key, position)
                ) AS mail CROSS JOIN started
                ORDER BY mail.position
            )
            SELECT count(*) FROM started INTO started_count;
        """
}
