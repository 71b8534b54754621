import Foundation

/// Bounces and complaints that arrive after the relay accepted a message, in a transaction (`StoreTransaction`), so
/// that the bounce, the suppression it causes and the event that describes them commit together.
public protocol MailBounceTransactions {
    /// The message whose `Message-ID` identifier is `messageID`, without its rendered message; nil when none (or purged).
    func mail(messageID: String) throws(StorageError) -> MailOutboxRecord?
    /// The newest sent message to `recipient` (compared by `MailSuppression.key`), without its rendered message; nil
    /// when none.
    func latestSentMail(recipient: String) throws(StorageError) -> MailOutboxRecord?
    /// Records `bounce` on message `id` (a later bounce replaces an earlier one).
    /// - Returns: false, changing nothing, when there is no such message.
    /// - Throws: `storage.invalidRecord` when the bounce breaks a bound.
    func recordMailBounce(id: Int64, _ bounce: MailBounce) throws(StorageError) -> Bool
    /// Suppresses mail to the suppression's address; an address already suppressed keeps its first suppression.
    /// - Returns: whether the address was not suppressed before (it is now).
    /// - Throws: `storage.invalidRecord` when the suppression breaks a bound.
    func suppressMail(_ suppression: MailSuppression) throws(StorageError) -> Bool
    /// The suppression of `address` (by `MailSuppression.key`), nil when it is not suppressed.
    func mailSuppression(address: String) throws(StorageError) -> MailSuppression?
    /// Lifts the suppression of `address` (by `MailSuppression.key`).
    /// - Returns: the suppression lifted; nil when the address was not suppressed.
    func deleteMailSuppression(address: String) throws(StorageError) -> MailSuppression?
}
