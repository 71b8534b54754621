import Foundation

/// What became of a claimed message (`MailOutboxStore.recordMailOutcomes`).
public enum MailOutcome: Sendable, Equatable {
    /// The relay accepted it: sent, its rendered message deleted.
    case sent
    /// The attempt failed; try again at `nextAttemptAt`.
    case retry(nextAttemptAt: Date, error: String, replyCode: Int?)
    /// The attempt failed and the message is given up: dead, its rendered message deleted.
    case dead(error: String, replyCode: Int?)
}
