import Foundation

/// What the worker of one durable outbox does with its rows, which `OutboxWorker` runs on its thread: claim due rows
/// with a lease, send each within a deadline, record the outcomes, and keep the outbox (purge, repair). The mail
/// outbox (`MailDelivery`) and each webhook endpoint (`WebhookEndpointDelivery`) are one each.
package protocol OutboxDelivery: Sendable {
    /// A claimed row, handed to `send`.
    associatedtype Claim: Sendable
    /// A send's result, handed to `record`.
    associatedtype Attempt: Sendable

    /// The worker thread's name (`passkeyd-mail`).
    static var threadName: String { get }
    /// What the lease owner names after its random part: `mail`, a webhook endpoint's ID.
    var ownerLabel: String { get }
    /// The most sends in flight at once (1: one after the other).
    var concurrency: Int { get }
    /// How long a claim is held: longer than a send in flight may take, so that a dead node's claims are taken over
    /// that long after it died and a live one's never.
    var leaseDuration: TimeInterval { get }

    /// At most `limit` due rows, leased to `owner` until `leaseUntil`; none when the store failed (logged).
    func claim(owner: String, now: Date, leaseUntil: Date, limit: Int) -> [Claim]
    /// Sends `claim` within its deadline and calls `completion` once, from any thread (or before returning).
    func send(_ claim: Claim, completion: @escaping @Sendable (Attempt) -> Void)
    /// Records the attempts (counted and logged); a failure of the store leaves their claims leased until they end,
    /// after which the rows are sent again (logged).
    func record(_ attempts: [Attempt], owner: String)
    /// The outbox's upkeep at each round while running (purge, chain repair), each on its own schedule; `lastActivity`
    /// is when the worker was last woken by a write, claimed rows or had an outcome to record (`distantPast` before).
    mutating func keep(at now: Date, lastActivity: Date)
}
