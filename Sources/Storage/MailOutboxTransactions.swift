/// The mail outbox, in a transaction (`StoreTransaction`): a message is queued with the change that causes it, so a
/// change is never committed without its message nor a message without its change.
public protocol MailOutboxTransactions {
    /// Queues a message: pending, due at its `createdAt`, no attempts; `suppressed` instead, without its rendered message
    /// and never sent, when its recipient is suppressed (`MailSuppression`).
    /// - Returns: its ID.
    /// - Throws: `storage.invalidRecord` when it breaks a bound (`NewMail.validate`).
    func enqueueMail(_ mail: NewMail) throws(StorageError) -> Int64
}
