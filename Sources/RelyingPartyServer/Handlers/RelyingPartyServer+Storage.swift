import Storage

extension RelyingPartyServer {
    /// Runs a storage call, mapping its error at the edge.
    func storage<Value>(_ body: () throws -> Value) throws(ServerError) -> Value {
        do {
            return try body()
        } catch let error as StorageError {
            throw .storage(error)
        } catch {
            throw ServerError(503, "storage_unavailable", "The server cannot reach its database; try again shortly.")
        }
    }
}
