/// Everything the relying-party server stores. Every method is safe to call from any thread at once; each call is
/// atomic on its own. All errors are `StorageError`.
///
/// Which writes are single calls and which go through `transaction`:
/// - Single calls are kept where one purpose-built statement is both correct alone and on a hot path: the reads of
///   every request (`user`, `credential(s)`, `session`), the ceremony fast paths (`completeRegistration`,
///   `completeAuthentication`: one statement on PostgreSQL, one transaction on SQLite, events included), the
///   challenges (`insertChallenge`, `takeChallenge`, which skip the fsync), a session's `lastUsedAt`, the
///   revocation worker's bookkeeping (`dueRevocations`, `completeRevocation`, `rescheduleRevocation`), the outbox
///   reader (`events(after:limit:)`) and the purges of expired rows.
/// - Every other write goes through `transaction` (`StoreTransaction`): account creation and deletion, Apple links,
///   renames, passkey and session deletion, notifications, the refresh-token bookkeeping, and whatever comes next
///   (merges, admin, recovery). Such a write is written once, on top of the record-level operations, for every
///   driver, and appends its event in the same transaction.
///
/// Drivers write the SQL of each record-level operation once: the transaction type and the single calls share it.
public typealias PasskeyStore = UserStore & CredentialStore & ChallengeStore & SessionStore & CeremonyStore
    & AppleNonceStore & AppleRevocationQueue & EventStore & WebhookDeliveryStore & TransactionalStore & StoreStatusReporting
    & MailOutboxStore
