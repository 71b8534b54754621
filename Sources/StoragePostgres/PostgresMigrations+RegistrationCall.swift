import Foundation

extension PostgresMigrations {
    /// Part of version 28 (issue 42): the registration's write with its 56 arguments as one value of
    /// `passkeyd_registration_call` (step 24's arguments as its fields, without their `p_`, in the same order), as
    /// `passkeyd_sign_in` takes the sign-in's: a call parsed, analysed and planned each time, as through a
    /// transaction-mode pooler, handles one placeholder instead of 56. `passkeyd_register` runs step 24's statement over
    /// the fields of its one argument and answers the same count (0: the user is disabled, nothing was written). Both are
    /// generated from step 24's argument list and statement, so the three cannot drift; nodes of the previous release
    /// keep calling step 24's `passkeyd_complete_registration`, which stays.
    static let registrationCallSchema = """
        CREATE TYPE passkeyd_registration_call AS (
        \(registrationCallFields)
        );
        CREATE FUNCTION passkeyd_register(given passkeyd_registration_call)
        RETURNS bigint LANGUAGE plpgsql AS $body$
        DECLARE
            started_count bigint;
        BEGIN
        \(registrationCallStatements)
            RETURN started_count;
        END
        $body$;
        DO $fix$ BEGIN
            EXECUTE format('ALTER FUNCTION passkeyd_register SET search_path = %I, pg_temp', current_schema());
        END $fix$;
        ALTER FUNCTION passkeyd_register SET lock_timeout = '4500ms';
        ALTER FUNCTION passkeyd_register SET plan_cache_mode = force_generic_plan;
        """

    /// `passkeyd_registration_call`'s fields: the registration function's arguments of step 24 without their `p_`.
    private static let registrationCallFields = registrationParameters.replacing(/\bp_/, with: "")

    /// Step 24's statement over the fields of the call's one argument, `given`, instead of its arguments.
    private static let registrationCallStatements = registrationStatements.replacing(/\bp_/, with: "given.")
}
