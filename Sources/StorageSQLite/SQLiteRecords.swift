import Foundation
import Storage

/// The record-level operations of `SQLiteStore` on its connection, each one SQL statement: the `StoreTransaction`
/// given to a transaction body, and what the single calls and the ceremonies run (in autocommit mode or inside their
/// own transaction). The SQL of each operation is written here once.
final class SQLiteRecords: StoreTransaction {
    let connection: SQLiteConnection
    /// False once the call that made the records has returned.
    var isOpen = true
    /// The first error an operation threw; it dooms the transaction.
    private(set) var failure: StorageError?

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Runs one operation, mapping and remembering its error.
    @discardableResult
    func run<Value>(_ operation: (SQLiteConnection) throws(SQLiteError) -> Value) throws(StorageError) -> Value {
        guard isOpen else { throw StorageError(.unavailable, "the transaction has ended") }
        do throws(SQLiteError) {
            return try operation(connection)
        } catch {
            let mapped = error.storageError
            if failure == nil { failure = mapped }
            throw mapped
        }
    }

    /// Checks a record before it is written, remembering a refusal like a failed statement's.
    func validate(_ check: () throws(StorageError) -> Void) throws(StorageError) {
        do {
            try check()
        } catch {
            if failure == nil { failure = error }
            throw error
        }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction (the write lock is taken at once, so nothing else writes between
    /// its reads and writes): commits when it returns and no operation failed, rolls back otherwise.
    func immediateTransaction<Value>(_ body: () throws(StorageError) -> Value) throws(StorageError) -> Value {
        try run { connection throws(SQLiteError) in try connection.statement(SQLiteQuery.beginImmediate).run([]) }
        do throws(StorageError) {
            let value = try body()
            if let failure { throw failure }
            try run { connection throws(SQLiteError) in try connection.statement(SQLiteQuery.commit).run([]) }
            return value
        } catch {
            if connection.isInTransaction {
                _ = try? connection.statement("ROLLBACK").run([])
            }
            throw error
        }
    }
}
