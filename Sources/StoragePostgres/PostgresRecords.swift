import Foundation
import Storage

/// The record-level operations of `PostgresStore` on one borrowed connection, each one SQL statement: the
/// `StoreTransaction` given to a transaction body, and what the single calls run (in autocommit mode). The SQL of
/// each operation is written here once; the ceremonies compose their single statement from the same column lists
/// and value encoders.
final class PostgresRecords: StoreTransaction {
    let connection: PostgresConnection
    /// False once the call that made the records has returned.
    var isOpen = true
    /// The first failure of a statement: it aborted the PostgreSQL transaction, which can then only roll back.
    private(set) var statementFailure: PostgresError?
    /// The first error any operation threw (a failed statement's, mapped, or a refused record's); it dooms the
    /// transaction.
    private(set) var failure: StorageError?

    init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Runs one operation, mapping and remembering its error.
    @discardableResult
    func run<Value>(_ operation: (PostgresConnection) throws(PostgresError) -> Value) throws(StorageError) -> Value {
        guard isOpen else { throw StorageError(.unavailable, "the transaction has ended") }
        do throws(PostgresError) {
            return try operation(connection)
        } catch {
            if statementFailure == nil { statementFailure = error }
            throw remember(error.storageError)
        }
    }

    /// Checks a record before it is written, remembering a refusal like a failed statement's.
    func validate(_ check: () throws(StorageError) -> Void) throws(StorageError) {
        do {
            try check()
        } catch {
            throw remember(error)
        }
    }

    private func remember(_ error: StorageError) -> StorageError {
        if failure == nil { failure = error }
        return error
    }
}
