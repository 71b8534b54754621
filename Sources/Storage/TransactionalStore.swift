/// A store that runs bodies of record-level reads and writes as one transaction: the way every write other than the
/// ceremonies, the challenges and the queue's bookkeeping is made (see `PasskeyStore`).
public protocol TransactionalStore: Sendable {
    /// Runs `body` as one transaction and returns what it returned.
    ///
    /// - Atomicity: the body's writes through `transaction` commit together when it returns, or not at all when it
    ///   throws (its error is rethrown unchanged). An operation of `transaction` that throws dooms the transaction:
    ///   it is rolled back and `transaction` throws even when the body caught the error (PostgreSQL cannot continue a
    ///   failed transaction, and every driver behaves alike). Decide with reads instead (`user(name:)` before
    ///   `insertUser`).
    /// - Isolation: equivalent to running the bodies one after the other. In memory the body runs under the store's
    ///   lock on a copy of the state, committed by assignment; on SQLite in a `BEGIN IMMEDIATE` transaction of the
    ///   one connection (the database's write lock is held from the start, across processes too); on PostgreSQL in a
    ///   `SERIALIZABLE` transaction, which the store rolls back and runs again from the start on a serialization
    ///   failure or a deadlock, up to `PostgresStore.maximumTransactionAttempts` times (the retries one at a time across
    ///   nodes, under an advisory lock), before `storage.unavailable`.
    /// - Durability: when `transaction` returns, the commit is durable (`synchronous=FULL` on SQLite,
    ///   `synchronous_commit=on` on PostgreSQL), and so is every earlier write of the store.
    ///
    /// Rules for the body: since it may run more than once, it has no effect outside the store (no network call, no
    /// cache update, no log line about what it wrote: do those after `transaction` returns); it uses the store only
    /// through `transaction`, never the store itself (a nested call waits for the lock the body holds, for ever on
    /// SQLite and in memory); and `transaction` is not kept beyond the body (its operations then throw
    /// `storage.unavailable`).
    func transaction<Result: Sendable>(_ body: (_ transaction: any StoreTransaction) throws(StorageError) -> Result) throws(StorageError) -> Result
}
