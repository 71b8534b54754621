import Foundation

/// The record-level operations of `InMemoryStore` on a state it holds: a copy during a transaction, the store's own
/// state (moved in and back) for a single call. Every operation checks before it changes anything.
final class InMemoryTransaction: StoreTransaction {
    var state: InMemoryStore.State
    /// False once the body that was given the transaction has returned.
    var isOpen = true
    /// The first error an operation threw; it dooms the transaction.
    private(set) var failure: StorageError?

    init(state: InMemoryStore.State) {
        self.state = state
    }

    /// Runs one operation on the state, remembering its error.
    func run<Value>(_ operation: (inout InMemoryStore.State) throws(StorageError) -> Value) throws(StorageError) -> Value {
        guard isOpen else { throw StorageError(.unavailable, "the transaction has ended") }
        do {
            return try operation(&state)
        } catch {
            if failure == nil { failure = error }
            throw error
        }
    }
}
