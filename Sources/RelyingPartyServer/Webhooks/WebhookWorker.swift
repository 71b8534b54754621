import CryptoCore
import Dispatch
import Foundation
import HTTPServer
import Observability
import Storage
import Synchronization

/// The delivery thread of one endpoint. It claims due deliveries (`WebhookDeliveryStore.claimWebhookDeliveries`),
/// keeps up to `concurrency` attempts in flight on the outbound client (different users' chains in parallel, one user's
/// in order), records their outcomes in batches, and claims again: when an outcome came in, when the server wrote
/// something (`wake`, coalesced: at most one claim per `minimumClaimInterval`), and every `pollInterval` (retries that
/// came due, events written by other nodes). The first worker of a node also repairs chains left waiting for nothing
/// (`WebhookChainRepairSchedule`). Never on a request path: a slow or dead receiver only keeps this thread
/// waiting for its replies.
final class WebhookWorker: Sendable {
    static let concurrency = 8
    static let pollInterval: TimeInterval = 1
    static let minimumClaimInterval: TimeInterval = 0.01

    private struct State {
        var stopping = false
        var wakeRequested = false
        var inFlight = 0
        var completed: [(deliveryID: Int64, outcome: WebhookDeliveryOutcome, messageID: String)] = []
    }

    let endpoint: WebhookEndpoint
    /// The lease owner of this worker's claims: random per start, so that a restarted node never records an outcome
    /// for a claim of its previous life.
    let owner: String
    /// The endpoint's secret, keyed once for every attempt's signature.
    private let signingKey: MessageAuthenticationKey
    private let store: any WebhookDeliveryStore
    private let sender: any WebhookSender
    private let time: any TimeSource
    private let policy: WebhookRetryPolicy
    private let repairsChains: Bool
    /// `passkeyd_webhook_attempts_total`, when metrics are on.
    private let attempts: MetricFamily<Counter>?
    private let log: Logger
    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic(false)

    init(
        endpoint: WebhookEndpoint,
        store: any WebhookDeliveryStore,
        sender: any WebhookSender,
        time: any TimeSource,
        random: any RandomSource,
        repairsChains: Bool,
        attempts: MetricFamily<Counter>? = nil,
        log: Logger
    ) {
        self.endpoint = endpoint
        signingKey = MessageAuthenticationKey(key: endpoint.secret)
        self.store = store
        self.sender = sender
        self.time = time
        self.policy = WebhookRetryPolicy(endpoint: endpoint, random: random)
        self.repairsChains = repairsChains
        self.attempts = attempts
        self.log = log
        owner = Hex.encode(random.bytes(count: 8)) + "/" + endpoint.id
    }

    /// A claim is held for two attempt timeouts and 5 s: an attempt in flight never outlives it, and a dead node's
    /// claims are taken over that long after it died.
    var leaseDuration: TimeInterval { Double(2 * endpoint.timeoutSeconds + 5) }

    func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "passkeyd-webhooks"
        thread.start()
    }

    /// Something was written: claim soon.
    func wake() {
        let first = state.withLock { state in
            defer { state.wakeRequested = true }
            return !state.wakeRequested
        }
        if first { signal.signal() }
    }

    /// Stops claiming, waits for the attempts in flight (each ends within its timeout), records them and ends the thread.
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
        var lastClaim = Date.distantPast
        var repairs = WebhookChainRepairSchedule()
        while true {
            let (completed, stopping, woken, inFlight) = state.withLock { state in
                defer {
                    state.completed = []
                    state.wakeRequested = false
                }
                return (state.completed, state.stopping, state.wakeRequested, state.inFlight)
            }
            record(completed)
            if stopping && inFlight == 0 { return }
            var more = false
            let now = time.now
            if repairsChains, !stopping, let queuedSince = repairs.repairDue(at: now) { repair(since: queuedSince, now: now) }
            let free = Self.concurrency - inFlight
            if !stopping, free > 0, woken || !completed.isEmpty || now.timeIntervalSince(lastClaim) >= Self.pollInterval {
                let sinceLast = now.timeIntervalSince(lastClaim)
                if sinceLast < Self.minimumClaimInterval { Thread.sleep(forTimeInterval: Self.minimumClaimInterval - sinceLast) }
                lastClaim = time.now
                let claimed = claim(limit: free, now: lastClaim)
                for delivery in claimed { send(delivery) }
                more = claimed.count == free
            }
            _ = signal.wait(timeout: .now() + (more ? Self.minimumClaimInterval : Self.pollInterval))
        }
    }

    private func claim(limit: Int, now: Date) -> [ClaimedWebhookDelivery] {
        do throws(StorageError) {
            return try store.claimWebhookDeliveries(
                endpointID: endpoint.id,
                owner: owner,
                now: now,
                leaseUntil: now.addingTimeInterval(leaseDuration),
                limit: limit
            )
        } catch {
            log.warning("webhook \(endpoint.id): claiming deliveries failed: \(error.code)")
            return []
        }
    }

    private func send(_ claimed: ClaimedWebhookDelivery) {
        let message = WebhookMessage(claimed.event)
        let now = time.now
        state.withLock { $0.inFlight += 1 }
        let delivery = claimed.delivery
        sender.send(message.request(to: endpoint, signingKey: signingKey, now: now)) { [self] result in
            let outcome = policy.outcome(of: result, attempts: delivery.attempts, queuedAt: delivery.queuedAt, now: time.now)
            state.withLock { state in
                state.inFlight -= 1
                state.completed.append((delivery.id, outcome, message.id))
            }
            signal.signal()
        }
    }

    private func record(_ completed: [(deliveryID: Int64, outcome: WebhookDeliveryOutcome, messageID: String)]) {
        guard !completed.isEmpty else { return }
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

    private func repair(since: Date, now: Date) {
        do throws(StorageError) {
            let repaired = try store.repairWebhookChains(queuedSince: since, now: now)
            if repaired > 0 { log("webhooks: \(repaired) waiting deliveries had nothing to wait for (a head ended on another node); due now") }
        } catch {
            log.warning("webhooks: repairing chains failed: \(error.code)")
        }
    }
}
