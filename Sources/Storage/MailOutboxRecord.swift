import Foundation

/// One message of the mail outbox, as stored. The rendered message (`message`) is kept only while the message is
/// pending: it holds links with tokens, so it is deleted when the message is sent or given up; the row itself stays
/// for the admin API until the outbox's retention purges it.
public struct MailOutboxRecord: Sendable, Equatable {
    /// Assigned by the store; increasing in creation order, never reused.
    public var id: Int64
    public var kind: String
    public var recipient: String
    public var userID: [UInt8]?
    public var messageID: String
    /// The rendered message while pending; nil once sent or dead.
    public var message: [UInt8]?
    public var status: MailOutboxStatus
    public var attempts: Int
    public var createdAt: Date
    /// When it may be attempted; nil once sent or dead.
    public var nextAttemptAt: Date?
    public var lastAttemptAt: Date?
    /// The stable code of the last failure (`mail.timeout` …), nil after a success.
    public var lastError: String?
    /// The relay's last SMTP reply code of a failure, when it answered one.
    public var lastReplyCode: Int?
    /// The worker that holds it (`claimMail`), and until when; nil and `noLease` when none.
    public var leaseOwner: String?
    public var leaseUntil: Date
    public var updatedAt: Date
    /// What a provider reported after the relay accepted it (`MailBounceTransactions.recordMailBounce`), when anything.
    public var bounce: MailBounce?

    public init(
        id: Int64,
        kind: String,
        recipient: String,
        userID: [UInt8]?,
        messageID: String,
        message: [UInt8]?,
        status: MailOutboxStatus,
        attempts: Int,
        createdAt: Date,
        nextAttemptAt: Date?,
        lastAttemptAt: Date? = nil,
        lastError: String? = nil,
        lastReplyCode: Int? = nil,
        leaseOwner: String? = nil,
        leaseUntil: Date = MailOutboxRecord.noLease,
        updatedAt: Date,
        bounce: MailBounce? = nil
    ) {
        self.id = id
        self.kind = kind
        self.recipient = recipient
        self.userID = userID
        self.messageID = messageID
        self.message = message
        self.status = status
        self.attempts = attempts
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastError = lastError
        self.lastReplyCode = lastReplyCode
        self.leaseOwner = leaseOwner
        self.leaseUntil = leaseUntil
        self.updatedAt = updatedAt
        self.bounce = bounce
    }

    /// The `leaseUntil` of a message nobody holds: Foundation's reference date, stored as 0.
    public static let noLease = Date(timeIntervalSinceReferenceDate: 0)
}
