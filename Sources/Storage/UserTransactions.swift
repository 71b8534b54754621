import Foundation

/// The reads and writes of users and their usernames, in a transaction (`StoreTransaction`).
public protocol UserTransactions {
    /// The user with this handle, or nil.
    func user(id: [UInt8]) throws(StorageError) -> UserRecord?

    /// The user whose username has the key of `name` (`UserRecord.nameKey(of:)`), or nil.
    func user(name: String) throws(StorageError) -> UserRecord?

    /// The oldest user whose name has the confusable skeleton `skeleton` (`UserRecord.nameSkeleton(of:)`), or nil.
    func user(nameSkeleton skeleton: String) throws(StorageError) -> UserRecord?

    /// The user whose `externalID` is `externalID` (compared byte for byte), or nil.
    func user(externalID: String) throws(StorageError) -> UserRecord?

    /// The users whose `email` is `email`, compared ASCII case-insensitively, and verified (`emailVerified`),
    /// ordered by `createdAt`, then by `id`.
    func users(verifiedEmail email: String) throws(StorageError) -> [UserRecord]

    /// Stores a new user.
    /// - Throws: `storage.duplicateKey` when a user with `user.id` or `user.appAccountToken` exists;
    ///   `storage.usernameTaken` when another user's name has the key of `user.name`; `storage.externalIdTaken` when
    ///   another user has `user.externalID`; `storage.invalidRecord` when it breaks a bound (`UserRecord.validate`).
    func insertUser(_ user: UserRecord) throws(StorageError)

    /// Writes the name, display name (and whether it is a default), email, email verification and external id of the
    /// user with `user.id`; its `appAccountToken` and `createdAt` never change.
    /// - Returns: false, changing nothing, when there is no such user.
    /// - Throws: `storage.usernameTaken` when another user's name has the key of `user.name`; `storage.externalIdTaken`
    ///   when another user has `user.externalID`; `storage.invalidRecord` as `insertUser`.
    func updateUser(_ user: UserRecord) throws(StorageError) -> Bool

    /// Deletes the user and every row of the account: its credentials, sessions, Apple identities (with their refresh
    /// tokens), link declines, enrollment links, recovery codes, password hash, authorization codes, grants (with their refresh tokens) and the challenges issued for it (those whose `userID`
    /// is this user). Queued Apple revocations and events are kept.
    /// - Returns: whether there was such a user.
    func deleteUser(id: [UInt8]) throws(StorageError) -> Bool

    // MARK: for administration

    /// At most `limit` users whose name key (`UserRecord.nameKey(of:)`) starts with the key of `prefix` (every user for
    /// ""), ordered by name key byte-wise (UTF-8), after the user whose key is `after`'s when it is given: a cursor over
    /// the accounts, for the admin API's search (case-insensitive) and export.
    func users(namePrefix prefix: String, after: String?, limit: Int) throws(StorageError) -> [UserRecord]

    /// At most `limit` users whose `email` is `email`, compared ASCII case-insensitively, verified or not, ordered by
    /// `createdAt`, then by `id`: the admin API's search by email.
    func users(email: String, limit: Int) throws(StorageError) -> [UserRecord]
}
