import Foundation
import Storage

/// One page of `GET /admin/mail/suppressions`.
public struct AdminSuppressionPage: Encodable, Sendable {
    /// An address passkeyd sends no more mail to.
    public struct Suppression: Encodable, Sendable {
        public let address: String
        /// `hard` or `complaint`.
        public let kind: String
        /// The provider's short reason.
        public let reason: String
        /// The message whose bounce suppressed the address (`GET /admin/mail`), when known.
        public let mailId: Int64?
        public let createdAt: Date

        init(_ suppression: MailSuppression) {
            address = suppression.address
            kind = suppression.kind.rawValue
            reason = suppression.reason
            mailId = suppression.mailID
            createdAt = suppression.createdAt
        }
    }

    public let suppressions: [Suppression]
    /// Absent on the last page.
    public let nextCursor: String?
}
