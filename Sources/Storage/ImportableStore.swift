/// A store that can take a whole export, the destination of `passkeyd migrate`.
public protocol ImportableStore: Sendable {
    /// Writes every record of `export` in one transaction: all of them or, on any failure, none. Its shared secrets
    /// replace any the store holds, which can only have been made while it held no records.
    /// - Throws: `storage.notEmpty` when the store already holds a user, a session, an Apple identity, a queued
    ///   revocation or an event; what the insertions throw (such as `storage.usernameTaken`) when the export is
    ///   inconsistent.
    func importRecords(_ export: StoreExport) throws(StorageError)
}
