import Foundation

/// Signed-in sessions, looked up by the SHA-256 of their token on every signed-in request. A session is valid while
/// `now < expiresAt`. Sessions are created by the ceremonies (`CeremonyStore`) or in a transaction
/// (`StoreTransaction.insertSession`), and listed and ended in a transaction (`sessions(userID:now:)`,
/// `deleteSession`, `deleteSessions`), where the `session.revoked` events are written with them.
public protocol SessionStore: Sendable {
    /// Returns the session with this token hash, or nil when it is missing or expired (`now >= expiresAt`), or when it
    /// was handed off from a session (`parentID`) that is missing or expired.
    /// Looking up an expired session does not delete it; purging does.
    func session(tokenHash: [UInt8], now: Date) throws(StorageError) -> SessionRecord?

    /// Returns the session with this public ID, or nil when it is missing or expired (`now >= expiresAt`), or its parent
    /// is (as `session(tokenHash:now:)`): how an access
    /// token, which names its session by `sid`, is checked on every request that carries one.
    func session(id: [UInt8], now: Date) throws(StorageError) -> SessionRecord?

    /// Sets the session's `lastUsedAt` to `at`. Changes nothing when the session is gone.
    ///
    /// Durability: may return before the write is durable (like `ChallengeStore`'s writes); a crash may lose the
    /// time, never the session.
    func recordSessionUse(tokenHash: [UInt8], at: Date) throws(StorageError)

    /// Deletes every session with `expiresAt <= now`.
    /// - Returns: the number of sessions deleted.
    func purgeExpiredSessions(now: Date) throws(StorageError) -> Int
}
