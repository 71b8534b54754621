/// Accounts, read on the hot paths. Usernames are compared by their key (`UserRecord.nameKey(of:)`: NFKC, lowercased),
/// which every driver stores beside the name with a unique index; validating and trimming them is the caller's job. Accounts are written by `CeremonyStore.completeRegistration` and, for everything else, in a transaction
/// (`StoreTransaction.insertUser`, `deleteUser`).
public protocol UserStore: Sendable {
    /// Returns the user with this handle, or nil when there is none.
    func user(id: [UInt8]) throws(StorageError) -> UserRecord?

    /// Returns the user whose username has the key of `name` (`Frank` finds `frank`), or nil when there is none.
    func user(name: String) throws(StorageError) -> UserRecord?

    /// The oldest user whose name has the confusable skeleton `skeleton` (`UserRecord.nameSkeleton(of:)`), or nil.
    func user(nameSkeleton skeleton: String) throws(StorageError) -> UserRecord?
}
