import Foundation

/// A message to queue in the mail outbox (`MailOutboxTransactions.enqueueMail`), in the transaction of the change that
/// causes it: the rendered message and its envelope.
public struct NewMail: Sendable, Equatable {
    public static let maximumKindLength = 32
    public static let maximumRecipientLength = 254
    public static let maximumMessageBytes = 600 * 1024

    /// What the message is (`verifyAddress`, `securityNotice` …), for the admin API and metrics.
    public var kind: String
    /// The envelope's one recipient.
    public var recipient: String
    /// The account it is about, for the admin API; nil when there is none (any more).
    public var userID: [UInt8]?
    /// The identifier of its `Message-ID`.
    public var messageID: String
    /// The whole RFC 5322 message, as sent.
    public var message: [UInt8]
    public var createdAt: Date

    public init(kind: String, recipient: String, userID: [UInt8]?, messageID: String, message: [UInt8], createdAt: Date) {
        self.kind = kind
        self.recipient = recipient
        self.userID = userID
        self.messageID = messageID
        self.message = message
        self.createdAt = createdAt
    }

    /// - Throws: `storage.invalidRecord` when a field is empty or over its bound.
    public func validate() throws(StorageError) {
        guard !kind.isEmpty, kind.utf8.count <= Self.maximumKindLength, !recipient.isEmpty, recipient.utf8.count <= Self.maximumRecipientLength,
            !messageID.isEmpty, messageID.utf8.count <= 64, !message.isEmpty, message.count <= Self.maximumMessageBytes,
            (userID?.count ?? 0) <= 64
        else {
            throw StorageError(.invalidRecord, "a queued message has an empty field or one over its bound")
        }
    }
}
