import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// Issue 42: a failing PostgreSQL store says what failed (`StorageError.outage`), from the server's SQLSTATE, provoked
/// here on a pooled connection of the store: a read-only transaction (25006), a statement timeout (57014), a lock
/// timeout (55P03); a refused connection is unreachable.
@Suite("PostgreSQL failures name what failed", PostgresClusterScope())
struct PostgresFailureNameTests {
    /// The outage of the error `sql` raises on a connection of `store` after `setUp`, mapped as the store maps it.
    static func outage(of sql: String, after setUp: String, on store: PostgresStore) throws(StorageError) -> StorageError? {
        try store.withConnection { connection throws(PostgresError) -> StorageError? in
            try connection.execute(setUp)
            defer { try? connection.execute("RESET ALL") }
            do throws(PostgresError) {
                try connection.execute(sql)
                return nil
            } catch {
                return error.storageError
            }
        }
    }

    static func store() throws -> PostgresStore {
        let cluster = try PostgresClusterScope.current()
        return try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 2)
    }

    @Test func aReadOnlyTransactionIsReadOnly() throws {
        let store = try Self.store()
        let error = try Self.outage(
            of: "INSERT INTO webhook_subscriptions (endpoint_id, event_type) VALUES ('app', '*')",
            after: "SET default_transaction_read_only = on",
            on: store
        )
        #expect(error?.code == .unavailable && error?.outage == .readOnly, "\(String(describing: error))")
    }

    @Test func aStatementTimeoutIsTimedOut() throws {
        let store = try Self.store()
        let error = try Self.outage(of: "SELECT pg_sleep(2)", after: "SET statement_timeout = 50", on: store)
        #expect(error?.outage == .timedOut, "\(String(describing: error))")
    }

    @Test func aLockTimeoutIsTimedOut() throws {
        let store = try Self.store()
        // One connection holds the table's lock while another waits for it at most 50 ms.
        let error = try store.withConnection { holder throws(PostgresError) -> Result<StorageError?, StorageError> in
            try holder.execute("BEGIN; LOCK TABLE webhook_subscriptions IN ACCESS EXCLUSIVE MODE")
            defer { try? holder.execute("ROLLBACK") }
            do throws(StorageError) {
                return .success(try Self.outage(of: "SELECT count(*) FROM webhook_subscriptions", after: "SET lock_timeout = 50", on: store))
            } catch {
                return .failure(error)
            }
        }.get()
        #expect(error?.outage == .timedOut, "\(String(describing: error))")
    }

    @Test func aRefusedConnectionIsUnreachable() {
        do {
            _ = try PostgresStore(connectionString: "host=127.0.0.1 port=1 dbname=passkeyd connect_timeout=2", poolSize: 1)
            Issue.record("a store opened without a server")
        } catch {
            #expect(error.code == .unavailable && error.outage == .unreachable, "\(error)")
        }
    }
}
