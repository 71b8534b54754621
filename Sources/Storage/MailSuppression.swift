import Foundation

/// An address passkeyd sends no more mail to, after a hard bounce or a complaint: a message queued for it is recorded
/// as `suppressed` instead of being sent, until an admin lifts the suppression.
public struct MailSuppression: Sendable, Equatable {
    /// The address as the bounced message was sent to it.
    public var address: String
    /// `hard` or `complaint`.
    public var kind: MailBounceKind
    /// The provider's short reason, as on the message (`MailBounce.reason`).
    public var reason: String
    /// The outbox message whose bounce suppressed the address, when known.
    public var mailID: Int64?
    public var createdAt: Date

    public init(address: String, kind: MailBounceKind, reason: String, mailID: Int64?, createdAt: Date) {
        self.address = address
        self.kind = kind
        self.reason = reason
        self.mailID = mailID
        self.createdAt = createdAt
    }

    /// The key an address is suppressed and found by: its ASCII letters lowercased (the addresses passkeyd sends to are
    /// ASCII, `MailAddress`), as SQL's `lower` does, so that `Ada@Example.org` and `ada@example.org` are one address.
    public static func key(_ address: String) -> String {
        String(decoding: address.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// - Throws: `storage.invalidRecord` when the address is empty or a field is over its bound.
    public func validate() throws(StorageError) {
        guard !address.isEmpty, address.utf8.count <= NewMail.maximumRecipientLength, reason.utf8.count <= MailBounce.maximumReasonLength
        else {
            throw StorageError(.invalidRecord, "a suppression has an empty field or one over its bound")
        }
    }
}
