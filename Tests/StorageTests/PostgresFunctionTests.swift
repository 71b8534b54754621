import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// Schema steps 24 to 28's functions (issue 42): all run with the search path of the schema the migration made them in,
/// so a caller whose path puts another schema first cannot make them read or write that schema's tables.
@Suite("PostgreSQL schema functions", PostgresClusterScope())
struct PostgresFunctionTests {
    @Test func aFunctionReadsItsOwnSchemaWhateverTheCallersSearchPath() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: name), poolSize: 1)
        defer { store.close() }
        let credential = StoreSamples.credential(1, owner: 1)
        try store.seedUser(StoreSamples.user(1), credential: credential)
        let fixed = try cluster.psql(
            """
            SELECT string_agg(proname || ' ' || array_to_string(proconfig, ';'), ' | ' ORDER BY proname) FROM pg_proc
            WHERE proname LIKE 'passkeyd\\_%'
            """,
            database: name
        )
        // Step 25's sign-in write, unused since step 26's but called by nodes built before it: no step drops it.
        #expect(fixed.contains("passkeyd_complete_authentication search_path=public, pg_temp"), "\(fixed)")
        #expect(fixed.contains("passkeyd_complete_authentication_expecting search_path=public, pg_temp"), "\(fixed)")
        #expect(fixed.contains("passkeyd_sign_in search_path=public, pg_temp"), "\(fixed)")
        #expect(fixed.contains("passkeyd_credential search_path=public, pg_temp"), "\(fixed)")
        #expect(fixed.contains("passkeyd_credential_with_owner search_path=public, pg_temp"), "\(fixed)")
        #expect(fixed.contains("passkeyd_complete_registration search_path=public, pg_temp"), "\(fixed)")
        #expect(fixed.contains("passkeyd_register search_path=public, pg_temp"), "\(fixed)")
        // Empty tables of the same names in a schema that comes first on the caller's path.
        let id = credential.id.map { String(format: "%02x", $0) }.joined()
        let found = try cluster.psql(
            """
            CREATE SCHEMA decoy; CREATE TABLE decoy.credentials (LIKE public.credentials);
            CREATE TABLE decoy.users (LIKE public.users);
            SET search_path = decoy, public;
            SELECT count(*) FROM passkeyd_credential_with_owner('\\x\(id)'::bytea)
                UNION ALL SELECT count(*) FROM passkeyd_credential('\\x\(id)'::bytea);
            """,
            database: name
        )
        #expect(found.split(whereSeparator: \.isNewline).suffix(2) == ["1", "1"], "\(found)")
        #expect(try store.credential(id: credential.id) == credential)
    }
}
