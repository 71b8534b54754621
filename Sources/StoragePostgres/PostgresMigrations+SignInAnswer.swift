import Foundation

extension PostgresMigrations {
    /// Version 28 (issue 42): the sign-in's two calls answer rows of named columns instead of whole rows, whose fields
    /// the caller took out one by one (`(written.o_owner).id, …`), each costing PostgreSQL's parser, analysis and
    /// executor more than a plain column, and whose result type PostgreSQL built on each call from the function's
    /// `pg_proc` row. `passkeyd_sign_in` is step 27's write, same arguments and statements, answering
    /// `passkeyd_sign_in_answer` (the outcome, then the owner's columns in `PostgresRecords.userColumns` order) instead of
    /// `OUT` parameters. `passkeyd_credential` answers `passkeyd_credential_row` (`credentialColumns`): the read of a
    /// sign-in through a transaction-mode pooler, the passkey alone, since the write answers the owner (step 24's
    /// `passkeyd_credential_with_owner` took whole rows of both apart, for a caller that used only the passkey).
    /// Callgrind, single-user backend, per call (`bench/runs/2026-12-07-answer.md`): the write 1,622,650 → 1,385,655
    /// instructions parsed, analysed and planned each time (as through a pooler), 1,366,084 → 1,302,723 prepared
    /// (direct); the read 808,553 → 279,500 (the plain statement, parsed each time: 338,489). Nodes of the previous
    /// release keep calling steps 24's and 27's functions, which stay. The write takes its arguments as one value of
    /// `passkeyd_sign_in_call` (step 27's arguments as its fields, without their `p_`), so that a call parsed, analysed
    /// and planned each time handles one placeholder instead of 35: PostgreSQL's instructions per pooled sign-in on a
    /// running cluster 823,576 → 673,560, per direct one 652,060 → 641,196 (`bench/runs/2026-12-07-record.md`).
    /// A step that adds a column that `userColumns` or `credentialColumns` reads adds it to these types and functions.
    /// The step also takes the registration's write with one composite argument (`registrationCallSchema`).
    static let signInAnswerSchema = """
        CREATE TYPE passkeyd_sign_in_answer AS (
            outcome text, id bytea, name text, display_name text, created_at double precision,
            display_name_is_default boolean, app_account_token text, email text, email_verified boolean, name_key text,
            external_id text, disabled boolean, metadata text, name_skeleton text
        );
        CREATE TYPE passkeyd_sign_in_call AS (
        \(signInCallFields)
        );
        CREATE FUNCTION passkeyd_sign_in(given passkeyd_sign_in_call)
        RETURNS passkeyd_sign_in_answer LANGUAGE plpgsql AS $body$
        DECLARE
            answer passkeyd_sign_in_answer;
            appended_ids bigint[];
            appended_id bigint;
        BEGIN
        \(signInCallStatements)
            RETURN answer;
        END
        $body$;
        DO $fix$ BEGIN
            EXECUTE format('ALTER FUNCTION passkeyd_sign_in SET search_path = %I, pg_temp', current_schema());
        END $fix$;
        ALTER FUNCTION passkeyd_sign_in SET lock_timeout = '4500ms';
        ALTER FUNCTION passkeyd_sign_in SET plan_cache_mode = force_generic_plan;
        CREATE TYPE passkeyd_credential_row AS (
            id bytea, user_id bytea, public_key bytea, algorithm bigint, sign_count bigint, transports text, aaguid bytea,
            backup_eligible boolean, backup_state boolean, attestation_format text, attestation_summary text, name text,
            created_at double precision, last_used_at double precision, clone_warning boolean,
            backup_eligibility_changed boolean, user_handle bytea
        );
        CREATE FUNCTION passkeyd_credential(p_id bytea)
        RETURNS SETOF passkeyd_credential_row LANGUAGE plpgsql STABLE AS $body$
        BEGIN
            RETURN QUERY SELECT c.id, c.user_id, c.public_key, c.algorithm, c.sign_count, c.transports, c.aaguid,
                c.backup_eligible, c.backup_state, c.attestation_format, c.attestation_summary, c.name, c.created_at,
                c.last_used_at, c.clone_warning, c.backup_eligibility_changed, c.user_handle
            FROM credentials c WHERE c.id = p_id;
        END
        $body$;
        DO $fix$ BEGIN
            EXECUTE format('ALTER FUNCTION passkeyd_credential SET search_path = %I, pg_temp', current_schema());
        END $fix$;
        ALTER FUNCTION passkeyd_credential SET lock_timeout = '4500ms';
        """

    /// `passkeyd_sign_in_call`'s fields: the sign-in function's arguments of steps 26 and 27 without their `p_`.
    private static let signInCallFields = signInParameters.replacing(/\bp_/, with: "")

    /// Step 27's statements over the fields of the call's one argument, `given`, instead of its arguments.
    private static let signInCallStatements = signInStatements(
        outcome: "answer.outcome",
        returning: "RETURN answer;",
        owner: Self.ownerIntoAnswer
    ).replacing(/\bp_/, with: "given.")

    /// The owner's columns into the answer's, after its outcome (set when the write is recorded).
    private static let ownerIntoAnswer =
        "NULL, u.id, u.name, u.display_name, u.created_at, u.display_name_is_default, u.app_account_token, u.email, "
        + "u.email_verified, u.name_key, u.external_id, u.disabled, u.metadata, u.name_skeleton INTO answer"
}
