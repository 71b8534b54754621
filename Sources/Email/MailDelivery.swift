import BackgroundWork
import ConfigurationReading
import CryptoCore
import Foundation
import MailTransport
import Observability
import Storage

/// What the mail outbox's worker (`MailWorker`) does: it claims one due message at a time with a lease
/// (`MailOutboxStore.claimMail`), sends it through the relay (`SMTPClient`, which blocks the worker's thread, never an
/// event loop or a request), and records the outcome. Finished messages' rows are purged after
/// `email.retentionSeconds`.
package struct MailDelivery: OutboxDelivery {
    /// A message and what its send came to.
    package struct Attempt: Sendable {
        package let mail: MailOutboxRecord
        package let outcome: MailOutcome
    }

    package static let purgeInterval: TimeInterval = 600
    package static var threadName: String { "passkeyd-mail" }

    package let settings: EmailSettings
    package let client: SMTPClient
    private let store: any MailOutboxStore
    private let time: any TimeSource
    private let random: any RandomSource
    /// `passkeyd_mail_attempts_total{kind, outcome, recipient}`, when metrics are on.
    private let attempts: MetricFamily<Counter>?
    private let log: Logger
    private var lastPurge = Date.distantPast

    package init(
        settings: EmailSettings,
        store: any MailOutboxStore,
        time: any TimeSource,
        random: any RandomSource,
        attempts: MetricFamily<Counter>?,
        log: Logger
    ) throws(ConfigurationError) {
        do throws(MailError) {
            client = try SMTPClient(configuration: settings.relay)
        } catch {
            throw ConfigurationError(.invalidValue, key: "email.host", error.reason)
        }
        self.settings = settings
        self.store = store
        self.time = time
        self.random = random
        self.attempts = attempts
        self.log = log
    }

    package var ownerLabel: String { "mail" }
    package var concurrency: Int { 1 }

    /// A claim is held for twice the send's deadline (the send, then the `QUIT` after a failure) and 5 s: a send in
    /// flight never outlives it, and a dead node's claim is taken over that long after it died.
    package var leaseDuration: TimeInterval { Double(2 * settings.relay.timeoutMilliseconds) / 1_000 + 5 }

    package func claim(owner: String, now: Date, leaseUntil: Date, limit: Int) -> [MailOutboxRecord] {
        do throws(StorageError) {
            return try store.claimMail(owner: owner, now: now, leaseUntil: leaseUntil, limit: limit)
        } catch {
            log.warning("email: claiming a message failed: \(error.code)")
            return []
        }
    }

    /// Sends on the calling thread (the worker's) and completes before returning.
    package func send(_ mail: MailOutboxRecord, completion: @escaping @Sendable (Attempt) -> Void) {
        completion(Attempt(mail: mail, outcome: outcome(of: failure(sending: mail), attempts: mail.attempts)))
    }

    package func record(_ attempts: [Attempt], owner: String) {
        for attempt in attempts { record(attempt, owner: owner) }
    }

    private func record(_ attempt: Attempt, owner: String) {
        let mail = attempt.mail
        switch attempt.outcome {
        case .sent:
            attempts?.increment([mail.kind, "sent", Self.recipientKind(mail.recipient)])
        case .retry(let next, let error, let replyCode):
            attempts?.increment([mail.kind, "failed", Self.recipientKind(mail.recipient)])
            log.warning(
                "email: message \(mail.id) (\(mail.kind)) failed (\(error)\(replyCode.map { ", reply \($0)" } ?? "")); next attempt \(RFC3339Timestamp.milliseconds(next))"
            )
        case .dead(let error, let replyCode):
            attempts?.increment([mail.kind, "dead", Self.recipientKind(mail.recipient)])
            log.warning("email: message \(mail.id) (\(mail.kind)) is dead (\(error)\(replyCode.map { ", reply \($0)" } ?? ""))")
        }
        do throws(StorageError) {
            try store.recordMailOutcome(id: mail.id, attempt.outcome, owner: owner, now: time.now)
        } catch {
            // The claim stays leased until it ends; then the message is sent again.
            log.warning("email: recording the outcome of message \(mail.id) failed: \(error.code)")
        }
    }

    private func failure(sending mail: MailOutboxRecord) -> MailError? {
        guard let message = mail.message else { return MailError(.messageTooLarge, "the stored message has no body") }
        do throws(MailError) {
            try client.send(message, from: settings.from, to: try MailAddress(mail.recipient))
            return nil
        } catch {
            return error
        }
    }

    /// Sent; dead at once on a permanent failure (5xx, a message that cannot be sent) or after
    /// `email.maximumAttempts`; otherwise retried after `firstRetrySeconds` × 2^(attempt − 1), at most
    /// `maximumRetrySeconds`, with jitter over the upper half.
    package func outcome(of failure: MailError?, attempts: Int) -> MailOutcome {
        guard let failure else { return .sent }
        if failure.isPermanent || attempts + 1 >= settings.maximumAttempts {
            return .dead(error: failure.code.rawValue, replyCode: failure.replyCode)
        }
        let base = min(
            Double(settings.maximumRetrySeconds),
            Double(settings.firstRetrySeconds) * pow(2, Double(min(attempts, 30)))
        )
        let fraction = Double(random.bytes(count: 2).reduce(0) { $0 << 8 | UInt16($1) }) / Double(UInt16.max)
        return .retry(
            nextAttemptAt: time.now.addingTimeInterval(base * (0.5 + fraction / 2)),
            error: failure.code.rawValue,
            replyCode: failure.replyCode
        )
    }

    /// `apple_private_relay` for an address of Apple's private email relay (mail it refuses usually means the sending
    /// domain is not registered for the app, or fails SPF or DKIM), else `other`: never the address itself.
    package static func recipientKind(_ address: String) -> String {
        address.lowercased().hasSuffix("@privaterelay.appleid.com") ? "apple_private_relay" : "other"
    }

    /// Purges finished messages older than `email.retentionSeconds`, every `purgeInterval`.
    package mutating func keep(at now: Date, lastActivity: Date) {
        guard now.timeIntervalSince(lastPurge) >= Self.purgeInterval else { return }
        lastPurge = now
        do throws(StorageError) {
            let purged = try store.purgeMail(before: now.addingTimeInterval(-Double(settings.retentionSeconds)))
            if purged > 0 { log("email: \(purged) sent or dead messages older than \(settings.retentionSeconds) s purged") }
        } catch {
            log.warning("email: purging finished messages failed: \(error.code)")
        }
    }
}
