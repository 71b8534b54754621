import Foundation

extension InMemoryStore {
    public func claimMail(owner: String, now: Date, leaseUntil: Date, limit: Int) throws(StorageError) -> [MailOutboxRecord] {
        state.withLock { state in
            let due = state.mailOutbox.values
                .filter { mail in
                    guard mail.status == .pending, let next = mail.nextAttemptAt else { return false }
                    return next <= now && mail.leaseUntil <= now
                }
                .sorted { ($0.nextAttemptAt ?? now, $0.id) < ($1.nextAttemptAt ?? now, $1.id) }
                .prefix(max(0, limit))
            return due.map { mail in
                var claimed = mail
                claimed.leaseOwner = owner
                claimed.leaseUntil = leaseUntil
                claimed.updatedAt = now
                state.mailOutbox[mail.id] = claimed
                return claimed
            }
        }
    }

    public func recordMailOutcome(id: Int64, _ outcome: MailOutcome, owner: String, now: Date) throws(StorageError) {
        state.withLock { state in
            guard var mail = state.mailOutbox[id], mail.status == .pending, mail.leaseOwner == owner else { return }
            mail.leaseOwner = nil
            mail.leaseUntil = MailOutboxRecord.noLease
            mail.updatedAt = now
            mail.attempts += 1
            mail.lastAttemptAt = now
            switch outcome {
            case .sent:
                mail.status = .sent
                mail.nextAttemptAt = nil
                mail.message = nil
                mail.lastError = nil
                mail.lastReplyCode = nil
            case .retry(let next, let error, let replyCode):
                mail.nextAttemptAt = next
                mail.lastError = error
                mail.lastReplyCode = replyCode
            case .dead(let error, let replyCode):
                mail.status = .dead
                mail.nextAttemptAt = nil
                mail.message = nil
                mail.lastError = error
                mail.lastReplyCode = replyCode
            }
            state.mailOutbox[id] = mail
        }
    }

    public func mailOutbox(status: MailOutboxStatus?, after id: Int64, limit: Int) throws(StorageError) -> [MailOutboxRecord] {
        state.withLock { state in
            state.mailOutbox.values
                .filter { $0.id > id && (status == nil || $0.status == status) }
                .sorted { $0.id < $1.id }
                .prefix(max(0, limit))
                .map { mail in
                    var listed = mail
                    listed.message = nil
                    return listed
                }
        }
    }

    public func mailOutboxCounts() throws(StorageError) -> [MailOutboxStatus: Int] {
        state.withLock { state in
            state.mailOutbox.values.reduce(into: [MailOutboxStatus: Int]()) { counts, mail in counts[mail.status, default: 0] += 1 }
        }
    }

    public func mailSuppressions(after key: String, limit: Int) throws(StorageError) -> [MailSuppression] {
        state.withLock { state in
            state.mailSuppressions.filter { $0.key > key }.sorted { $0.key < $1.key }.prefix(max(0, limit)).map(\.value)
        }
    }

    public func purgeMail(before: Date) throws(StorageError) -> Int {
        state.withLock { state in
            let old = state.mailOutbox.values.filter { $0.status != .pending && $0.updatedAt < before }.map(\.id)
            for id in old { state.mailOutbox[id] = nil }
            return old.count
        }
    }
}
