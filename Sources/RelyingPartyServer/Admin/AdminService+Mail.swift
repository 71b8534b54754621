import HTTPEdge
import Storage

extension AdminService {
    /// The mail outbox by ID, of one status (`pending`, `sent`, `dead`) or all.
    public func mailMessages(status: String?, cursor: String?, limit: Int?) throws(ServerError) -> AdminMailPage {
        let size = try Self.pageSize(limit)
        let wanted = try status.map { (name: String) throws(ServerError) -> MailOutboxStatus in
            guard let wanted = MailOutboxStatus(rawValue: name) else { throw ServerError(.invalidRequest, member: "status") }
            return wanted
        }
        let after = try cursor.map { (cursor: String) throws(ServerError) -> Int64 in try AdminCursor.mailID(cursor, status: status) } ?? 0
        let found = try storage { try store.mailOutbox(status: wanted, after: after, limit: size + 1) }
        let next = found.count > size ? found[size - 1].id : nil
        return AdminMailPage(
            messages: found.prefix(size).map(AdminMailPage.Message.init),
            nextCursor: next.map { AdminCursor.make(mailID: $0, status: status) }
        )
    }

    /// The addresses passkeyd sends no more mail to (after a hard bounce or a complaint), by address.
    public func mailSuppressions(cursor: String?, limit: Int?) throws(ServerError) -> AdminSuppressionPage {
        let size = try Self.pageSize(limit)
        let after = try cursor.map { (cursor: String) throws(ServerError) -> String in try AdminCursor.suppressionKey(cursor) } ?? ""
        let found = try storage { try store.mailSuppressions(after: after, limit: size + 1) }
        let next = found.count > size ? MailSuppression.key(found[size - 1].address) : nil
        return AdminSuppressionPage(
            suppressions: found.prefix(size).map(AdminSuppressionPage.Suppression.init),
            nextCursor: next.map { AdminCursor.make(suppressionKey: $0) }
        )
    }

    /// Lifts the suppression of `address`: mail to it is sent again.
    /// - Throws: `404 not_found` when the address is not suppressed.
    public func clearMailSuppression(address: String) throws(ServerError) -> AdminSuppressionPage.Suppression {
        guard !address.isEmpty, address.utf8.count <= NewMail.maximumRecipientLength else { throw ServerError(.notFound) }
        let lifted = try storage {
            try store.transaction { transaction throws(StorageError) in try transaction.deleteMailSuppression(address: address) }
        }
        guard let lifted else { throw ServerError(.notFound) }
        return AdminSuppressionPage.Suppression(lifted)
    }
}
