import ConfigurationReading
import CryptoCore
import Dispatch
import Foundation
import MailTransport
import Observability
import Storage
import Synchronization

/// The sending thread of one node: it claims a due message of the outbox with a lease
/// (`MailOutboxStore.claimMail`), sends it through the relay (`SMTPClient`, which blocks this thread, never an
/// event loop or a request), and records the outcome; then claims again, at once while messages are due, else when
/// woken (`wake`, after a write) or every `pollInterval` (retries that came due, messages queued by other nodes).
/// Several nodes never send one message at once (the lease), and a node killed mid-send leaves its claim to end, after
/// which another worker sends the message again: at least once. Finished messages' rows are purged after
/// `email.retentionSeconds`.
final class MailWorker: Sendable {
    static let pollInterval: TimeInterval = 1
    static let purgeInterval: TimeInterval = 600

    private struct State {
        var stopping = false
        var wakeRequested = false
    }

    /// The lease owner of this worker's claims: random per start, so that a restarted node never records an outcome
    /// for a claim of its previous life.
    let owner: String
    private let settings: EmailSettings
    private let client: SMTPClient
    private let store: any MailOutboxStore
    private let time: any TimeSource
    private let random: any RandomSource
    /// `passkeyd_mail_attempts_total{kind, outcome, recipient}`, when metrics are on.
    private let attempts: MetricFamily<Counter>?
    private let log: Logger
    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic(false)

    init(
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
        owner = Hex.encode(random.bytes(count: 8)) + "/mail"
    }

    /// A claim is held for twice the send's deadline (the send, then the `QUIT` after a failure) and 5 s: a send in
    /// flight never outlives it, and a dead node's claim is taken over that long after it died.
    var leaseDuration: TimeInterval { Double(2 * settings.relay.timeoutMilliseconds) / 1_000 + 5 }

    func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "passkeyd-mail"
        thread.start()
        log("email: sending through \(client.relayDescription)")
    }

    /// A message may have been queued: claim soon.
    func wake() {
        let first = state.withLock { state in
            defer { state.wakeRequested = true }
            return !state.wakeRequested
        }
        if first { signal.signal() }
    }

    /// Stops claiming, lets the send in flight end (within its deadline) and ends the thread.
    func stop() {
        guard started.load(ordering: .relaxed) else { return }
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        signal.signal()
        finished.wait()
    }

    private func run() {
        var lastPurge = Date.distantPast
        while true {
            let stopping = state.withLock { state in
                defer { state.wakeRequested = false }
                return state.stopping
            }
            if stopping { return }
            if time.now.timeIntervalSince(lastPurge) >= Self.purgeInterval {
                lastPurge = time.now
                purge()
            }
            let sentOne = sendOne()
            if !sentOne { _ = signal.wait(timeout: .now() + Self.pollInterval) }
        }
    }

    /// Claims one due message and sends it; whether there was one.
    private func sendOne() -> Bool {
        let now = time.now
        let claimed: [MailOutboxRecord]
        do throws(StorageError) {
            claimed = try store.claimMail(owner: owner, now: now, leaseUntil: now.addingTimeInterval(leaseDuration), limit: 1)
        } catch {
            log.warning("email: claiming a message failed: \(error.code)")
            return false
        }
        guard let mail = claimed.first else { return false }
        let outcome = outcome(of: send(mail), attempts: mail.attempts)
        switch outcome {
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
            try store.recordMailOutcome(id: mail.id, outcome, owner: owner, now: time.now)
        } catch {
            // The claim stays leased until it ends; then the message is sent again.
            log.warning("email: recording the outcome of message \(mail.id) failed: \(error.code)")
        }
        return true
    }

    private func send(_ mail: MailOutboxRecord) -> MailError? {
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
    func outcome(of failure: MailError?, attempts: Int) -> MailOutcome {
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
    static func recipientKind(_ address: String) -> String {
        address.lowercased().hasSuffix("@privaterelay.appleid.com") ? "apple_private_relay" : "other"
    }

    private func purge() {
        do throws(StorageError) {
            let purged = try store.purgeMail(before: time.now.addingTimeInterval(-Double(settings.retentionSeconds)))
            if purged > 0 { log("email: \(purged) sent or dead messages older than \(settings.retentionSeconds) s purged") }
        } catch {
            log.warning("email: purging finished messages failed: \(error.code)")
        }
    }
}
