import ConfigurationReading
import CryptoCore
import Foundation
import Observability
import Storage
import Webhooks

/// The webhooks of one node: at start-up it makes the store's subscriptions the configuration's endpoints (an endpoint
/// no longer configured has its pending deliveries given up, `webhook.endpointRemoved`), repairs every chain, and
/// starts one `WebhookWorker` per endpoint.
final class WebhookDispatcher: Sendable {
    let workers: [WebhookWorker]
    let endpoints: [WebhookEndpoint]
    private let store: any PasskeyStore
    private let time: any TimeSource
    private let log: Logger
    /// What the workers deliver with, their randomness and their counter, kept for a reload's replacement.
    private let sender: (any WebhookSender)?
    private let random: any RandomSource
    private let attempts: MetricFamily<Counter>?

    init(
        endpoints: [WebhookEndpoint],
        store: any PasskeyStore,
        sender: (any WebhookSender)?,
        time: any TimeSource,
        random: any RandomSource,
        attempts: MetricFamily<Counter>? = nil,
        log: Logger
    ) throws(ConfigurationError) {
        guard endpoints.isEmpty || sender != nil else { throw ConfigurationError(.missingValue, key: "webhooks", "need an outbound HTTP client") }
        self.endpoints = endpoints
        self.store = store
        self.time = time
        self.log = log
        self.sender = sender
        self.random = random
        self.attempts = attempts
        workers =
            sender.map { sender in
                endpoints.enumerated().map { index, endpoint in
                    WebhookWorker(
                        endpoint: endpoint,
                        store: store,
                        sender: sender,
                        time: time,
                        random: random,
                        repairsChains: index == 0,
                        attempts: attempts,
                        log: log
                    )
                }
            } ?? []
    }

    /// A dispatcher for `endpoints` that delivers as this one does (a reload's new endpoints).
    func replacement(endpoints: [WebhookEndpoint]) throws(ConfigurationError) -> WebhookDispatcher {
        try WebhookDispatcher(endpoints: endpoints, store: store, sender: sender, time: time, random: random, attempts: attempts, log: log)
    }

    /// Writes the subscriptions, repairs the chains and starts the workers.
    func start() throws(StorageError) {
        let now = time.now
        let removed = try store.transaction { transaction throws(StorageError) in
            try transaction.configureWebhookSubscriptions(
                endpoints.map(\.subscription),
                removalReason: WebhookError.Code.endpointRemoved.rawValue,
                now: now
            )
        }
        for (endpointID, abandoned) in removed {
            log(
                "webhook \(endpointID) is no longer configured: \(abandoned) pending deliveries given up (dead, \(WebhookError.Code.endpointRemoved))"
            )
        }
        _ = try store.repairWebhookChains(queuedSince: .distantPast, now: now)
        for worker in workers { worker.start() }
        if !endpoints.isEmpty { log("webhooks: delivering to \(endpoints.map(\.id).joined(separator: ", "))") }
    }

    func wake() {
        for worker in workers { worker.wake() }
    }

    /// Stops every worker, each after its attempts in flight.
    func stop() {
        for worker in workers { worker.stop() }
    }
}
