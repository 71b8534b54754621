import Foundation

extension PostgresMigrations {
    /// Version 26 (issue 42): `passkeyd_complete_authentication_expecting`, the sign-in's final write for a sign-in a
    /// node verified against the credential it kept from an earlier sign-in (`SignInRecordCache`), without
    /// reading it again: the credential read was one of the sign-in's two round trips, 0.12–0.13 ms of PostgreSQL's
    /// CPU each when paced as sign-ins come (pgbench, 1,200 reads a second on 8 connections), against 0.48–0.50 ms for
    /// the whole sign-in. Step 25's write with three more arguments, what the verification assumed (the public key,
    /// the backup-eligibility flag, the user handle): the credential's row is updated only while it holds them, in the
    /// same statement, so that a credential deleted and registered again with the same ID and another key is never
    /// signed in with by an assertion verified against the old one. It answers `credential_changed` then (before
    /// `user_disabled` and `counter_not_increased`), having written the spent challenge alone, and returns the owner's
    /// row as locked by the write, for the answer and the access token. The user's row is locked for every sign-in
    /// written (step 25 locked it only for one with events: every sign-in has its `session.created`). Nodes of the
    /// previous release keep calling step 25's function, which is left as it is. Nodes built since call only this one,
    /// for every sign-in, one verified from a fresh read too (with the record read); step 25's stays for nodes built
    /// before, which may still run during a rolling upgrade (no step drops it).
    static let expectedSignInSchema = """
        CREATE FUNCTION passkeyd_complete_authentication_expecting(
            p_spent_challenge bytea, p_spent_ceremony text, p_spent_user_verification text, p_spent_context bytea,
            p_spent_expires_at double precision,
            p_credential_id bytea, p_user_id bytea, p_sign_count bigint, p_backup_eligible boolean, p_backup_state boolean,
            p_used_at double precision, p_clone_warning boolean, p_backup_eligibility_changed boolean,
            p_token_hash bytea, p_session_id bytea, p_method text, p_session_credential_id bytea, p_apple_subject text,
            p_user_verified boolean, p_created_at double precision, p_authenticated_at double precision,
            p_expires_at double precision, p_user_agent text, p_last_used_at double precision, p_federated_issuer text,
            p_federated_subject text, p_parent_id bytea,
            p_event_types text[], p_event_user_ids bytea[], p_event_occurred_at double precision[], p_event_data bytea[],
            p_event_uuids text[],
            p_expected_public_key bytea, p_expected_backup_eligible boolean, p_expected_user_handle bytea,
            OUT o_outcome text, OUT o_owner users
        ) LANGUAGE plpgsql AS $body$
        DECLARE
            written record;
        BEGIN
            -- Step 25's statement; the credential's update also requires what the verification assumed, and the
            -- user's locked row is returned.
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
                    AND public_key = p_expected_public_key AND backup_eligible = p_expected_backup_eligible
                    AND user_handle = p_expected_user_handle
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
                SELECT u AS owner FROM users u WHERE u.id = p_user_id AND EXISTS (SELECT 1 FROM started)
                FOR NO KEY UPDATE
            ), appended AS (
                INSERT INTO events (type, user_id, occurred_at, data, uuid)
                SELECT event.type, event.user_id, event.occurred_at, event.data, event.uuid
                FROM unnest(p_event_types, p_event_user_ids, p_event_occurred_at, p_event_data, p_event_uuids)
                    WITH ORDINALITY AS event(type, user_id, occurred_at, data, uuid, position)
                    CROSS JOIN locked
                ORDER BY event.position
                RETURNING id
            )
            -- One record as the target: a row among other targets of one INTO is not allowed.
            SELECT (SELECT count(*) FROM started) AS started_count, (SELECT count(*) FROM spent) AS spent_count,
                (SELECT array_agg(id) FROM appended) AS appended_ids, (SELECT owner FROM locked) AS owner
            INTO written;
            o_owner := written.owner;
            -- The appended events' webhook deliveries, as step 25 queues them, when any endpoint is subscribed.
            IF written.appended_ids IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_subscriptions) THEN
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
                FROM events a JOIN webhook_subscriptions s ON s.event_type = a.type OR s.event_type = '*'
                WHERE a.id = ANY (written.appended_ids)
                ORDER BY a.id, s.endpoint_id COLLATE "C";
            END IF;
            IF p_spent_challenge IS NOT NULL AND written.spent_count = 0 THEN
                o_outcome := 'challenge_spent';
            ELSIF written.started_count = 1 THEN
                o_outcome := 'recorded';
            ELSIF NOT EXISTS (
                SELECT 1 FROM credentials WHERE id = p_credential_id AND user_id = p_user_id
                    AND public_key = p_expected_public_key AND backup_eligible = p_expected_backup_eligible
                    AND user_handle = p_expected_user_handle
            ) THEN
                o_outcome := 'credential_changed';
            ELSIF EXISTS (SELECT 1 FROM users WHERE id = p_user_id AND disabled) THEN
                o_outcome := 'user_disabled';
            ELSE
                o_outcome := 'counter_not_increased';
            END IF;
        END
        $body$;
        DO $fix$ BEGIN
            EXECUTE format('ALTER FUNCTION passkeyd_complete_authentication_expecting SET search_path = %I, pg_temp', current_schema());
        END $fix$;
        ALTER FUNCTION passkeyd_complete_authentication_expecting SET lock_timeout = '4500ms';
        ALTER FUNCTION passkeyd_complete_authentication_expecting SET plan_cache_mode = force_generic_plan;
        """
}
