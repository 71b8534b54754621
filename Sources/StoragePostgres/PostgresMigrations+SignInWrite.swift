import Foundation

extension PostgresMigrations {
    /// Version 25 (issue 42): the sign-in's final write (`passkeyd_complete_authentication`, same arguments and answers
    /// as step 24's) without the webhook deliveries in its statement. PostgreSQL sets up every node of a statement's
    /// plan on each call, whether a row flows through it or not: the deliveries' insert, their sort, window and join
    /// and the four indexes of `webhook_deliveries` cost 12 % of the function's instructions (callgrind, 750,842 →
    /// 660,334 per call with no endpoint; the whole statement 1.41 M → 1.32 M) on every sign-in of a server without
    /// webhooks. The events' deliveries are now a second statement of the same call, run only when the sign-in appended
    /// events and some endpoint is subscribed, with the same text over the appended rows (read back by id), still under
    /// the user's row lock taken by the first statement. It reads with a later snapshot of the same transaction: it sees
    /// every subscription the single statement saw and any committed since, and a delivery another transaction left
    /// pending while this one waited for the user's lock, behind which this one's is queued (the single statement's
    /// older snapshot could make both due at once).
    /// `CREATE OR REPLACE` resets a function's settings: they are set again, as step 24 set them.
    static let signInWriteSchema = """
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
            appended_ids bigint[];
        BEGIN
            -- One statement for the writes, as in step 24: one snapshot, one plan; see that step for the order.
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
                RETURNING id
            )
            SELECT (SELECT count(*) FROM started), (SELECT count(*) FROM spent), (SELECT array_agg(id) FROM appended)
            INTO started_count, spent_count, appended_ids;
            -- The appended events' webhook deliveries, as step 24 queued them, when any endpoint is subscribed.
            IF appended_ids IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_subscriptions) THEN
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
                WHERE a.id = ANY (appended_ids)
                ORDER BY a.id, s.endpoint_id COLLATE "C";
            END IF;
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
        DO $fix$ BEGIN
            EXECUTE format('ALTER FUNCTION passkeyd_complete_authentication SET search_path = %I, pg_temp', current_schema());
        END $fix$;
        ALTER FUNCTION passkeyd_complete_authentication SET lock_timeout = '4500ms';
        ALTER FUNCTION passkeyd_complete_authentication SET plan_cache_mode = force_generic_plan;
        """
}
