import Foundation

extension InMemoryTransaction {
    func mail(messageID: String) throws(StorageError) -> MailOutboxRecord? {
        try run { state in state.mailOutbox.values.filter { $0.messageID == messageID }.max { $0.id < $1.id }.map(Self.withoutMessage) }
    }

    func latestSentMail(recipient: String) throws(StorageError) -> MailOutboxRecord? {
        let key = MailSuppression.key(recipient)
        return try run { state in
            state.mailOutbox.values.filter { $0.status == .sent && MailSuppression.key($0.recipient) == key }.max { $0.id < $1.id }
                .map(Self.withoutMessage)
        }
    }

    func recordMailBounce(id: Int64, _ bounce: MailBounce) throws(StorageError) -> Bool {
        try bounce.validate()
        return try run { state in
            guard state.mailOutbox[id] != nil else { return false }
            state.mailOutbox[id]?.bounce = bounce
            return true
        }
    }

    func suppressMail(_ suppression: MailSuppression) throws(StorageError) -> Bool {
        try suppression.validate()
        return try run { state in
            let key = MailSuppression.key(suppression.address)
            guard state.mailSuppressions[key] == nil else { return false }
            state.mailSuppressions[key] = suppression
            return true
        }
    }

    func mailSuppression(address: String) throws(StorageError) -> MailSuppression? {
        try run { state in state.mailSuppressions[MailSuppression.key(address)] }
    }

    func deleteMailSuppression(address: String) throws(StorageError) -> MailSuppression? {
        try run { state in state.mailSuppressions.removeValue(forKey: MailSuppression.key(address)) }
    }

    private static func withoutMessage(_ mail: MailOutboxRecord) -> MailOutboxRecord {
        var listed = mail
        listed.message = nil
        return listed
    }
}
