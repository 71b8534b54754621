/// A store whose records can be read out whole, the source of `passkeyd migrate`.
public protocol ExportableStore: Sendable {
    /// Reads every record in one consistent snapshot, ordered by primary key.
    func exportRecords() throws(StorageError) -> StoreExport
}
