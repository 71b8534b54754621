import Storage
import StoragePostgres
import TestSupport
import Testing

/// The same contract as the other drivers, each check on fresh databases of one throwaway cluster.
@Suite("Store contract on PostgreSQL", PostgresClusterScope())
struct PostgresStoreContractTests {
    @Test(arguments: StoreContract.checks)
    func contract(check: StoreContractCheck) throws {
        let cluster = try PostgresClusterScope.current()
        // Each store closes its connections when the check lets go of it.
        try check.run { try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 20) }
    }
}
