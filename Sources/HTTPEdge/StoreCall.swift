import Storage

/// Runs a storage call, mapping its error at the edge: a `StorageError` to its `ServerError`, anything else to
/// `storage_unavailable` with its type as the detail for the log.
package func storage<Value>(_ body: () throws -> Value) throws(ServerError) -> Value {
    do {
        return try body()
    } catch let error as StorageError {
        throw .storage(error)
    } catch {
        throw ServerError(.storageUnavailable, detail: "\(type(of: error))")
    }
}
