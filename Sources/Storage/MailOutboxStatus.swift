/// Where a message of the mail outbox is: waiting (or being sent), sent, given up, or never sent because its address
/// is suppressed (`MailSuppression`).
public enum MailOutboxStatus: String, Sendable, CaseIterable {
    case pending, sent, dead, suppressed
}
