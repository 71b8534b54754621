import Foundation

/// The writes and reads of sessions, in a transaction (`StoreTransaction`); the hot-path reads are single calls
/// (`SessionStore`).
///
/// A session ends with its parent (`SessionRecord.parentID`, a hand-off): every deletion here also deletes the sessions
/// handed off from a deleted one, and theirs, and returns them with the others.
public protocol SessionTransactions {
    /// Stores a new session.
    /// - Throws: `storage.notFound` when `session.userID` is not an existing user; `storage.duplicateKey` when a
    ///   session with the same token hash or ID is stored; `storage.invalidRecord` when it breaks a bound
    ///   (`SessionRecord.validate`).
    func insertSession(_ session: SessionRecord) throws(StorageError)

    /// The user's unexpired sessions (`now < expiresAt`), ordered by `createdAt`, then by `id`.
    func sessions(userID: [UInt8], now: Date) throws(StorageError) -> [SessionRecord]

    /// Deletes the session with this token hash (signing out), and the sessions handed off from it.
    /// - Returns: the deleted sessions, ordered by `createdAt`, then by `id`; empty when there was none.
    func deleteSession(tokenHash: [UInt8]) throws(StorageError) -> [SessionRecord]

    /// Deletes the user's session with this public ID, and the sessions handed off from it; another user's session
    /// with that ID is left alone.
    /// - Returns: the deleted sessions, ordered by `createdAt`, then by `id`; empty when the user has none with this ID.
    func deleteSession(id: [UInt8], userID: [UInt8]) throws(StorageError) -> [SessionRecord]

    /// Deletes every session of the user (expired ones too) except the one whose ID is `keptID` ("sign out
    /// everywhere else"); all of them when `keptID` is nil.
    /// - Returns: the deleted sessions, ordered by `createdAt`, then by `id`.
    func deleteSessions(userID: [UInt8], except keptID: [UInt8]?) throws(StorageError) -> [SessionRecord]

    /// Deletes every session the Apple identity signed in (`appleSubject`).
    /// - Returns: the deleted sessions, ordered by `createdAt`, then by `id`.
    func deleteSessions(appleSubject: String) throws(StorageError) -> [SessionRecord]

    /// Deletes every session the identity at an OpenID provider (`federatedIssuer`, `federatedSubject`) signed in.
    /// - Returns: the deleted sessions, ordered by `createdAt`, then by `id`.
    func deleteSessions(federatedIssuer: String, subject: String) throws(StorageError) -> [SessionRecord]

    /// Makes the sessions the Apple identity `appleSubject` signed in name `newSubject` instead (the identity was
    /// re-keyed after an app transfer).
    /// - Returns: how many sessions changed.
    func moveSessions(appleSubject: String, to newSubject: String) throws(StorageError) -> Int
}
