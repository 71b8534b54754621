import BackgroundWork
import ConfigurationReading
import CryptoCore
import MailTransport
import Observability
import Storage

/// The sending thread of one node: `OutboxWorker` running the mail outbox's `MailDelivery`, one message after the
/// other, at once while messages are due, else when woken (after a write) or every `pollInterval`.
extension OutboxWorker where Delivery == MailDelivery {
    package convenience init(
        settings: EmailSettings,
        store: any MailOutboxStore,
        time: any TimeSource,
        random: any RandomSource,
        attempts: MetricFamily<Counter>?,
        log: Logger
    ) throws(ConfigurationError) {
        let delivery = try MailDelivery(settings: settings, store: store, time: time, random: random, attempts: attempts, log: log)
        self.init(delivery, time: time, random: random)
    }

    /// What a send's result means for its message (`MailDelivery.outcome`).
    package func outcome(of failure: MailError?, attempts: Int) -> MailOutcome {
        delivery.outcome(of: failure, attempts: attempts)
    }
}
