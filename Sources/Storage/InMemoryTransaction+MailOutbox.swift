extension InMemoryTransaction {
    func enqueueMail(_ mail: NewMail) throws(StorageError) -> Int64 {
        try mail.validate()
        return try run { state throws(StorageError) in
            state.lastMailID += 1
            let suppressed = state.mailSuppressions[MailSuppression.key(mail.recipient)] != nil
            state.mailOutbox[state.lastMailID] = MailOutboxRecord(
                id: state.lastMailID,
                kind: mail.kind,
                recipient: mail.recipient,
                userID: mail.userID,
                messageID: mail.messageID,
                message: suppressed ? nil : mail.message,
                status: suppressed ? .suppressed : .pending,
                attempts: 0,
                createdAt: mail.createdAt,
                nextAttemptAt: suppressed ? nil : mail.createdAt,
                updatedAt: mail.createdAt
            )
            return state.lastMailID
        }
    }
}
