import BackgroundWork
import CryptoCore
import Foundation
import HTTPServer
import Observability
import Storage
import Webhooks

/// What the delivery thread of one endpoint (`WebhookWorker`) does: it claims due deliveries
/// (`WebhookDeliveryStore.claimWebhookDeliveries`), keeps up to `concurrency` attempts in flight on the outbound client
/// (different users' chains in parallel, one user's in order), and records their outcomes in batches. The first worker
/// of a node also repairs chains left waiting for nothing (`WebhookChainRepairSchedule`). A slow or dead receiver only
/// keeps the worker waiting for its replies.
struct WebhookEndpointDelivery: OutboxDelivery {
    /// A delivery, and what its attempt came to.
    struct Attempt: Sendable {
        let deliveryID: Int64
        let outcome: WebhookDeliveryOutcome
        let messageID: String
    }

    static var threadName: String { "passkeyd-hooks" }

    let endpoint: WebhookEndpoint
    /// The endpoint's secret, keyed once for every attempt's signature.
    private let signingKey: MessageAuthenticationKey
    private let store: any WebhookDeliveryStore
    private let sender: any WebhookSender
    private let time: any TimeSource
    private let policy: WebhookRetryPolicy
    private let repairsChains: Bool
    private var repairs = WebhookChainRepairSchedule()
    /// `passkeyd_webhook_attempts_total`, when metrics are on.
    private let attempts: MetricFamily<Counter>?
    private let log: Logger

    init(
        endpoint: WebhookEndpoint,
        store: any WebhookDeliveryStore,
        sender: any WebhookSender,
        time: any TimeSource,
        random: any RandomSource,
        repairsChains: Bool,
        attempts: MetricFamily<Counter>?,
        log: Logger
    ) {
        self.endpoint = endpoint
        signingKey = endpoint.signingKey
        self.store = store
        self.sender = sender
        self.time = time
        policy = WebhookRetryPolicy(endpoint: endpoint, random: random)
        self.repairsChains = repairsChains
        self.attempts = attempts
        self.log = log
    }

    var ownerLabel: String { endpoint.id }
    var concurrency: Int { 8 }

    /// A claim is held for two attempt timeouts and 5 s: an attempt in flight never outlives it, and a dead node's
    /// claims are taken over that long after it died.
    var leaseDuration: TimeInterval { Double(2 * endpoint.timeoutSeconds + 5) }

    func claim(owner: String, now: Date, leaseUntil: Date, limit: Int) -> [ClaimedWebhookDelivery] {
        do throws(StorageError) {
            return try store.claimWebhookDeliveries(endpointID: endpoint.id, owner: owner, now: now, leaseUntil: leaseUntil, limit: limit)
        } catch {
            log.warning("webhook \(endpoint.id): claiming deliveries failed: \(error.code)")
            return []
        }
    }

    func send(_ claimed: ClaimedWebhookDelivery, completion: @escaping @Sendable (Attempt) -> Void) {
        let message = WebhookMessage(claimed.event)
        let delivery = claimed.delivery
        sender.send(message.request(to: endpoint, signingKey: signingKey, now: time.now)) { [policy, time] result in
            let outcome = policy.outcome(of: result, attempts: delivery.attempts, queuedAt: delivery.queuedAt, now: time.now)
            completion(Attempt(deliveryID: delivery.id, outcome: outcome, messageID: message.id))
        }
    }

    func record(_ completed: [Attempt], owner: String) {
        for item in completed {
            switch item.outcome {
            case .delivered: attempts?.increment([endpoint.id, "delivered"])
            case .retry: attempts?.increment([endpoint.id, "failed"])
            case .dead: attempts?.increment([endpoint.id, "dead"])
            case .released: break
            }
            switch item.outcome {
            case .retry(let next, let status, let error):
                log.warning(
                    "webhook \(endpoint.id): \(item.messageID) failed (\(status.map { "status \($0), " } ?? "")\(error)); next attempt \(RFC3339Timestamp.milliseconds(next))"
                )
            case .dead(let status, let error):
                log.warning("webhook \(endpoint.id): \(item.messageID) is dead (\(status.map { "status \($0), " } ?? "")\(error))")
            case .delivered, .released:
                break
            }
        }
        do throws(StorageError) {
            try store.recordWebhookOutcomes(completed.map { ($0.deliveryID, $0.outcome) }, owner: owner, now: time.now)
        } catch {
            // The claims stay leased until they expire, then the deliveries are made again.
            log.warning("webhook \(endpoint.id): recording \(completed.count) outcomes failed: \(error.code)")
        }
    }

    /// The first worker of a node repairs chains on `WebhookChainRepairSchedule`'s schedule.
    mutating func keep(at now: Date, lastActivity: Date) {
        guard repairsChains, let since = repairs.repairDue(at: now, lastActivity: lastActivity) else { return }
        do throws(StorageError) {
            let repaired = try store.repairWebhookChains(queuedSince: since, now: now)
            if repaired > 0 { log("webhooks: \(repaired) waiting deliveries had nothing to wait for (a head ended on another node); due now") }
        } catch {
            log.warning("webhooks: repairing chains failed: \(error.code)")
        }
    }
}
