import Foundation

/// The mail outbox as the sending worker, the admin API and metrics see it; messages are queued in transactions
/// (`MailOutboxTransactions`).
///
/// Claims are leases: a claimed message is not claimed again until `leaseUntil`, so a worker that dies (a node killed
/// mid-send) gives its claims back when their leases end, and the message is sent again (at least once). Outcomes are
/// recorded only for the owner that holds the lease. Across connections, processes and nodes sharing the database, a
/// message is returned to one claimer at a time.
public protocol MailOutboxStore: Sendable {
    /// Claims at most `limit` pending messages that are due (`nextAttemptAt <= now`) and not leased
    /// (`leaseUntil <= now`), oldest due first; sets their lease to `owner` until `leaseUntil`.
    func claimMail(owner: String, now: Date, leaseUntil: Date, limit: Int) throws(StorageError) -> [MailOutboxRecord]
    /// Records the outcome of each message whose lease `owner` holds (others are left as they are); every outcome counts
    /// the attempt (at `now`) and clears the lease. `sent` and `dead` delete the rendered message.
    func recordMailOutcome(id: Int64, _ outcome: MailOutcome, owner: String, now: Date) throws(StorageError)
    /// At most `limit` messages with `id > after`, ordered by `id`, only those in `status` when given; without their
    /// rendered message.
    func mailOutbox(status: MailOutboxStatus?, after id: Int64, limit: Int) throws(StorageError) -> [MailOutboxRecord]
    /// How many messages are in each status (statuses without any are left out).
    func mailOutboxCounts() throws(StorageError) -> [MailOutboxStatus: Int]
    /// At most `limit` suppressed addresses whose key (`MailSuppression.key`) sorts after `after`, ordered by key.
    func mailSuppressions(after key: String, limit: Int) throws(StorageError) -> [MailSuppression]
    /// Deletes the sent, dead and suppressed messages last changed before `before`.
    /// - Returns: how many were deleted.
    func purgeMail(before: Date) throws(StorageError) -> Int
}
