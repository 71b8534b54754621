import BackgroundWork
import CryptoCore
import Observability
import Storage
import Webhooks

/// The delivery thread of one endpoint: `OutboxWorker` running its `WebhookEndpointDelivery`, up to 8 attempts in
/// flight, claiming again when an outcome came in, when the server wrote something (`wake`) and every `pollInterval`.
typealias WebhookWorker = OutboxWorker<WebhookEndpointDelivery>

extension OutboxWorker where Delivery == WebhookEndpointDelivery {
    convenience init(
        endpoint: WebhookEndpoint,
        store: any WebhookDeliveryStore,
        sender: any WebhookSender,
        time: any TimeSource,
        random: any RandomSource,
        repairsChains: Bool,
        attempts: MetricFamily<Counter>? = nil,
        log: Logger
    ) {
        let delivery = WebhookEndpointDelivery(
            endpoint: endpoint,
            store: store,
            sender: sender,
            time: time,
            random: random,
            repairsChains: repairsChains,
            attempts: attempts,
            log: log
        )
        self.init(delivery, time: time, random: random)
    }
}
