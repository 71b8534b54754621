import Foundation

extension PostgresMigrations {
    /// Version 27 (issue 42): `passkeyd_complete_authentication_expecting` (step 26) as a sequence of simple statements
    /// instead of one chain of common table expressions, same arguments, same answers, same rows written. PostgreSQL sets
    /// up every node of a statement's plan on each call whether a row flows through it or not, and the chain's plan
    /// (the CTE scans, the events' unnest, sort and subquery, the final select of four sub-selects) cost more to set up
    /// and run than the simple statements do each alone: callgrind, 651 k → 566 k instructions per call of the function
    /// (`bench/runs/2026-12-07-pgcpu.md`). The order of the writes and of the row locks is the chain's: the spent
    /// challenge first (a challenge spent elsewhere answers `challenge_spent` with nothing else written), then the
    /// credential's row under the same conditions (what the verification assumed, the counter, an owner not disabled),
    /// then the user's row lock (before the session, whose foreign-key check then finds it held, and before the
    /// events: one user's event ids follow commit order), the session, the events one by one in the arrays' order (their
    /// ids taken in that order, as the chain's `ORDER BY` did), and step 26's deliveries. Each statement reads with its
    /// own snapshot of the same transaction; what could differ is read under the row locks (the credential's row by its
    /// update, the owner's by its lock), as in the chain. `CREATE OR REPLACE` resets the function's settings: they are
    /// set again, as step 26 set them. Nodes of the previous release call the function with the same arguments.
    static let signInStatementsSchema = """
        CREATE OR REPLACE FUNCTION passkeyd_complete_authentication_expecting(
        \(signInParameters),
            OUT o_outcome text, OUT o_owner users
        ) LANGUAGE plpgsql AS $body$
        DECLARE
            appended_ids bigint[];
            appended_id bigint;
        BEGIN
        \(signInStatements(outcome: "o_outcome", returning: "RETURN;", owner: "u.* INTO o_owner"))
        END
        $body$;
        DO $fix$ BEGIN
            EXECUTE format('ALTER FUNCTION passkeyd_complete_authentication_expecting SET search_path = %I, pg_temp', current_schema());
        END $fix$;
        ALTER FUNCTION passkeyd_complete_authentication_expecting SET lock_timeout = '4500ms';
        ALTER FUNCTION passkeyd_complete_authentication_expecting SET plan_cache_mode = force_generic_plan;
        """

    /// The sign-in function's arguments (steps 26, 27 and 28): the spent challenge (NULL: none), the counter and flags,
    /// the session but its user, the events, then what the verification assumed.
    static let signInParameters = """
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
            p_expected_public_key bytea, p_expected_backup_eligible boolean, p_expected_user_handle bytea
        """

    /// The sign-in function's statements (steps 27 and 28), given the variable its outcome goes to, the statement that
    /// returns, and what the owner's row is selected as and into.
    static func signInStatements(outcome: String, returning: String, owner: String) -> String {
        """
            IF p_spent_challenge IS NOT NULL THEN
                INSERT INTO challenges (challenge, ceremony, user_verification, context, expires_at)
                VALUES (p_spent_challenge, p_spent_ceremony, p_spent_user_verification, p_spent_context, p_spent_expires_at)
                ON CONFLICT (challenge) DO NOTHING;
                IF NOT FOUND THEN
                    \(outcome) := 'challenge_spent';
                    \(returning)
                END IF;
            END IF;
            UPDATE credentials SET sign_count = p_sign_count, backup_eligible = p_backup_eligible,
                backup_state = p_backup_state, last_used_at = p_used_at,
                clone_warning = (clone_warning OR p_clone_warning),
                backup_eligibility_changed = (backup_eligibility_changed OR p_backup_eligibility_changed)
            WHERE id = p_credential_id AND user_id = p_user_id
                AND public_key = p_expected_public_key AND backup_eligible = p_expected_backup_eligible
                AND user_handle = p_expected_user_handle
                AND (sign_count < p_sign_count OR (p_sign_count = 0 AND sign_count = 0))
                AND NOT EXISTS (SELECT 1 FROM users WHERE id = p_user_id AND disabled);
            IF FOUND THEN
                -- The user's row lock before the session and the events, until the commit.
                SELECT \(owner) FROM users u WHERE u.id = p_user_id FOR NO KEY UPDATE;
                INSERT INTO sessions (
                    token_hash, id, user_id, method, credential_id, apple_subject, user_verified, created_at,
                    authenticated_at, expires_at, user_agent, last_used_at, federated_issuer, federated_subject, parent_id
                ) VALUES (
                    p_token_hash, p_session_id, p_user_id, p_method, p_session_credential_id, p_apple_subject,
                    p_user_verified, p_created_at, p_authenticated_at, p_expires_at, p_user_agent, p_last_used_at,
                    p_federated_issuer, p_federated_subject, p_parent_id
                );
                -- As unnest would pair them: the longest array's length, NULL past a shorter one's end.
                FOR event_index IN 1 .. coalesce(greatest(cardinality(p_event_types), cardinality(p_event_user_ids),
                    cardinality(p_event_occurred_at), cardinality(p_event_data), cardinality(p_event_uuids)), 0) LOOP
                    INSERT INTO events (type, user_id, occurred_at, data, uuid)
                    VALUES (p_event_types[event_index], p_event_user_ids[event_index], p_event_occurred_at[event_index],
                        p_event_data[event_index], p_event_uuids[event_index])
                    RETURNING id INTO appended_id;
                    appended_ids := appended_ids || appended_id;
                END LOOP;
                -- The appended events' webhook deliveries, as step 26 queues them, when any endpoint is subscribed.
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
                \(outcome) := 'recorded';
                \(returning)
            END IF;
            IF NOT EXISTS (
                SELECT 1 FROM credentials WHERE id = p_credential_id AND user_id = p_user_id
                    AND public_key = p_expected_public_key AND backup_eligible = p_expected_backup_eligible
                    AND user_handle = p_expected_user_handle
            ) THEN
                \(outcome) := 'credential_changed';
            ELSIF EXISTS (SELECT 1 FROM users WHERE id = p_user_id AND disabled) THEN
                \(outcome) := 'user_disabled';
            ELSE
                \(outcome) := 'counter_not_increased';
            END IF;
        """
    }
}
