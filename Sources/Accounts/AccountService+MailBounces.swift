import AccountEvents
import CryptoCore
import Email
import Foundation
import HTTPEdge
import Storage

/// Bounces and complaints that providers report after the relay accepted a message (`POST /email/events/{provider}`):
/// each recorded on its message, a hard bounce or a complaint suppressing the address, with `email.bounced`, in one
/// transaction.
extension AccountService {
    /// What became of a provider's report.
    package enum BounceOutcome: Equatable {
        /// Recorded on `mail`; `suppressed` when it newly suppressed the address.
        case recorded(mail: MailOutboxRecord, suppressed: Bool)
        /// No message of the outbox matches it (unknown, or purged): nothing recorded.
        case unmatched
        /// Its replay key was remembered already: nothing recorded.
        case duplicate
    }

    /// Records `bounce` (from `provider`) on its message: the one with its `Message-ID` when the provider returned it,
    /// else the newest message sent to its recipient. With `replayKey`, the key is remembered until `until` first, and
    /// a key remembered already records nothing.
    package func recordMailBounce(
        _ bounce: ProviderBounce,
        provider: String,
        replayKey: [UInt8]?,
        until: Date
    ) throws(ServerError) -> BounceOutcome {
        let now = time.now
        return try storage {
            try store.transaction { transaction throws(StorageError) -> BounceOutcome in
                if let replayKey, !(try transaction.rememberNonce(replayKey, until: until, now: now)) { return .duplicate }
                var found: MailOutboxRecord?
                if let identifier = bounce.messageID { found = try transaction.mail(messageID: identifier) }
                if found == nil, let address = bounce.recipient { found = try transaction.latestSentMail(recipient: address) }
                guard let mail = found else { return .unmatched }
                _ = try transaction.recordMailBounce(id: mail.id, MailBounce(kind: bounce.kind, at: now, reason: bounce.reason))
                var suppressed = false
                if bounce.kind.suppresses {
                    let suppression = MailSuppression(
                        address: mail.recipient,
                        kind: bounce.kind,
                        reason: bounce.reason,
                        mailID: mail.id,
                        createdAt: now
                    )
                    suppressed = try transaction.suppressMail(suppression)
                }
                if let userID = mail.userID {
                    let event = AccountEvent.emailBounced(userID: userID, bounce: bounce.kind, provider: provider, suppressed: suppressed)
                    try transaction.appendEvent(event.event(at: now, random: random))
                }
                return .recorded(mail: mail, suppressed: suppressed)
            }
        }
    }
}
