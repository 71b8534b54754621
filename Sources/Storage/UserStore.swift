/// Accounts, read on the hot paths. Usernames are compared exactly (byte for byte); normalising them is the caller's
/// job. Accounts are written by `CeremonyStore.completeRegistration` and, for everything else, in a transaction
/// (`StoreTransaction.insertUser`, `deleteUser`).
public protocol UserStore: Sendable {
    /// Returns the user with this handle, or nil when there is none.
    func user(id: [UInt8]) throws(StorageError) -> UserRecord?

    /// Returns the user with exactly this username, or nil when there is none.
    func user(name: String) throws(StorageError) -> UserRecord?
}
