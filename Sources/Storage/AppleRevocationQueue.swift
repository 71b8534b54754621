import Foundation

/// Apple refresh tokens waiting to be revoked, as the background worker sees them. Tokens are queued in a transaction
/// (`StoreTransaction.enqueueRevocation`), with the account deletion that makes them obsolete. The queue belongs to no
/// account: deleting a user keeps its entries, so that a token is revoked even when the account is already gone.
public protocol AppleRevocationQueue: Sendable {
    /// Returns at most `limit` entries with `notBefore <= now`, ordered by `notBefore`, then by `id`.
    func dueRevocations(now: Date, limit: Int) throws(StorageError) -> [AppleRevocationRecord]

    /// Removes the entry (the token was revoked, or will never be). Idempotent.
    func completeRevocation(id: Int64) throws(StorageError)

    /// Moves the entry to `notBefore` and counts one more failed attempt. Changes nothing when the entry is gone.
    func rescheduleRevocation(id: Int64, notBefore: Date) throws(StorageError)
}
