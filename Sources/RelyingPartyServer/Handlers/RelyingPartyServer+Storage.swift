import Storage

extension RelyingPartyServer {
    /// Runs a storage call, mapping its error at the edge.
    func storage<Value>(_ body: () throws -> Value) throws(ServerError) -> Value {
        do {
            return try body()
        } catch let error as StorageError {
            throw .storage(error)
        } catch {
            throw ServerError(.storageUnavailable, detail: "\(type(of: error))")
        }
    }
}
