import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// A schema step that the previous release's nodes cannot live with (`PostgresMigrations.Step.breaksPreviousRelease`)
/// is refused, applying no step at all, unless the operator allows it; a compatible step needs no permission. Every
/// released step is compatible (the rolling upgrade of `make test-upgrade` runs 0.1.0's nodes on the migrated schema).
@Suite("PostgreSQL migrations that break the previous release", PostgresClusterScope())
struct PostgresMigrationCompatibilityTests {
    /// The released steps, then a compatible one (a new nullable column), then a breaking one (a column dropped).
    static var steps: [PostgresMigrations.Step] {
        let latest = PostgresMigrations.latestVersion
        return PostgresMigrations.steps + [
            PostgresMigrations.Step(version: latest + 1, sql: "ALTER TABLE users ADD COLUMN nickname text;"),
            PostgresMigrations.Step(version: latest + 2, sql: "ALTER TABLE users DROP COLUMN nickname;", breaksPreviousRelease: true),
        ]
    }

    @Test func everyReleasedStepKeepsThePreviousReleaseWorking() {
        #expect(PostgresMigrations.steps.allSatisfy { !$0.breaksPreviousRelease })
    }

    @Test func aBreakingStepIsRefusedWithNoStepAppliedUntilTheOperatorAllowsIt() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let connectionString = cluster.connectionString(database: name)
        try PostgresStore(connectionString: connectionString, poolSize: 1).close()
        let latest = PostgresMigrations.latestVersion
        let pool = PostgresConnectionPool(connectionString: connectionString, size: 1, waitTimeout: .seconds(10))
        defer { pool.close() }

        #expect(throws: StorageError.self) {
            try PostgresMigrations.migrate(pool, now: Date(), steps: Self.steps)
        }
        do {
            try PostgresMigrations.migrate(pool, now: Date(), steps: Self.steps)
        } catch {
            #expect(error.code == .migrationRefused)
            #expect(error.reason.contains("schema version \(latest + 2)") && error.reason.contains("--allow-incompatible-migration"))
        }
        #expect(try cluster.psql("SELECT version FROM passkeyd_schema", database: name) == "\(latest)", "no step applied")
        let columns = "SELECT count(*) FROM information_schema.columns WHERE table_name = 'users' AND column_name = 'nickname'"
        #expect(try cluster.psql(columns, database: name) == "0", "not even the compatible one before it")

        // The compatible step alone needs no permission.
        try PostgresMigrations.migrate(pool, now: Date(), steps: Array(Self.steps.dropLast()))
        #expect(try cluster.psql("SELECT version FROM passkeyd_schema", database: name) == "\(latest + 1)")
        #expect(try cluster.psql(columns, database: name) == "1")

        try PostgresMigrations.migrate(pool, now: Date(), steps: Self.steps, allowingIncompatible: true)
        #expect(try cluster.psql("SELECT version FROM passkeyd_schema", database: name) == "\(latest + 2)")
        #expect(try cluster.psql(columns, database: name) == "0")
        // Once applied, a later start has nothing to refuse.
        try PostgresMigrations.migrate(pool, now: Date(), steps: Self.steps)
    }
}
