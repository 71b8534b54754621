import Storage
import TestSupport

@testable import StorageSQLite

extension SQLiteConnection {
    /// Brings an empty database to schema `version` in one transaction: the steps' SQL and rewrites (given
    /// `StoreSamples.now`), as the migration of each release applied them.
    func applySchemaSteps(through version: Int) throws(SQLiteError) {
        try immediateTransaction { () throws(SQLiteError) in
            for step in SQLiteMigrations.steps.prefix(while: { $0.version <= version }) {
                try execute(step.sql)
                let records = SQLiteRecords(connection: self)
                do throws(StorageError) {
                    try step.rewrite?(records, StoreSamples.now)
                } catch {
                    throw SQLiteError(.failed, error.reason)
                }
            }
            try execute("PRAGMA user_version = \(version);")
        }
    }
}
