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
}
