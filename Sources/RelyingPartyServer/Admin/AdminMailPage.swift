import CryptoCore
import Foundation
import Storage

/// One page of `GET /admin/mail`.
public struct AdminMailPage: Encodable, Sendable {
    /// A message of the outbox as the admin API shows it: never its body (which holds links with tokens), nor the
    /// lease internals.
    public struct Message: Encodable, Sendable {
        public let id: Int64
        public let kind: String
        public let recipient: String
        /// The account it is about (base64url), when it has one.
        public let userId: String?
        public let status: String
        public let attempts: Int
        public let createdAt: Date
        public let nextAttemptAt: Date?
        public let lastAttemptAt: Date?
        /// The stable code of the last failure (`mail.*`).
        public let lastError: String?
        /// The relay's SMTP reply code of the last failure, when it answered one.
        public let lastReplyCode: Int?
        /// What a provider reported after the relay accepted it, when anything.
        public let bounce: Bounce?

        init(_ record: MailOutboxRecord) {
            id = record.id
            kind = record.kind
            recipient = record.recipient
            userId = record.userID.map(Base64URL.encode)
            status = record.status.rawValue
            attempts = record.attempts
            createdAt = record.createdAt
            nextAttemptAt = record.nextAttemptAt
            lastAttemptAt = record.lastAttemptAt
            lastError = record.lastError
            lastReplyCode = record.lastReplyCode
            bounce = record.bounce.map(Bounce.init)
        }
    }

    /// A bounce or complaint recorded on a message.
    public struct Bounce: Encodable, Sendable {
        /// `hard`, `soft` or `complaint`.
        public let kind: String
        public let at: Date
        /// The provider's short reason.
        public let reason: String

        init(_ bounce: MailBounce) {
            kind = bounce.kind.rawValue
            at = bounce.at
            reason = bounce.reason
        }
    }

    public let messages: [Message]
    /// Absent on the last page.
    public let nextCursor: String?
}
