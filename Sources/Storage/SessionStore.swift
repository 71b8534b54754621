import Foundation

/// Signed-in sessions, looked up by the SHA-256 of their token. A session is valid while `now < expiresAt`.
public protocol SessionStore: Sendable {
    /// Stores a new session.
    /// - Throws: `storage.notFound` when `session.userID` is not an existing user;
    ///   `storage.duplicateKey` when a session with the same token hash is already stored.
    func createSession(_ session: SessionRecord) throws(StorageError)

    /// Returns the session with this token hash, or nil when it is missing or expired (`now >= expiresAt`).
    /// Looking up an expired session does not delete it; purging does.
    func session(tokenHash: [UInt8], now: Date) throws(StorageError) -> SessionRecord?

    /// Deletes the session with this token hash. Idempotent: deleting a missing session succeeds.
    func deleteSession(tokenHash: [UInt8]) throws(StorageError)

    /// Deletes every session of the user, such as on "sign out everywhere". Idempotent.
    func deleteSessions(userID: [UInt8]) throws(StorageError)

    /// Deletes every session with `expiresAt <= now`.
    /// - Returns: the number of sessions deleted.
    func purgeExpiredSessions(now: Date) throws(StorageError) -> Int
}
