/// Where a message of the mail outbox is: waiting (or being sent), sent, or given up.
public enum MailOutboxStatus: String, Sendable, CaseIterable {
    case pending, sent, dead
}
