import Foundation

/// A bounce or complaint recorded on a message of the mail outbox (`MailBounceTransactions.recordMailBounce`).
public struct MailBounce: Sendable, Equatable {
    public static let maximumReasonLength = 200

    public var kind: MailBounceKind
    /// When passkeyd recorded it.
    public var at: Date
    /// The provider's short reason (`550 5.1.1 mailbox unknown`, `HardBounce`), at most `maximumReasonLength` bytes.
    public var reason: String

    public init(kind: MailBounceKind, at: Date, reason: String) {
        self.kind = kind
        self.at = at
        self.reason = reason
    }

    /// - Throws: `storage.invalidRecord` when the reason is over its bound.
    public func validate() throws(StorageError) {
        guard reason.utf8.count <= Self.maximumReasonLength else {
            throw StorageError(.invalidRecord, "a bounce's reason is over its bound")
        }
    }
}
