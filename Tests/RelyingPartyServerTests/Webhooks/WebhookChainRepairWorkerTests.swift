import CryptoCore
import Foundation
import JSON
import Observability
import OutboundHTTP
import Storage
import Synchronization
import Testing
import Webhooks

@testable import RelyingPartyServer

/// Issue 42: a node's first webhook worker, idle, repairs chains only once a minute (the full repair), not at each of
/// its claims; woken by a write (which may have left a delivery waiting for a head another node ended), it repairs the
/// recent chains at once and every second for 10 s, so such a delivery is still due within about a second.
@Suite struct WebhookChainRepairWorkerTests {
    /// A store without due deliveries that counts chain repairs, and holds one delivery left waiting by the two-node
    /// race from `stuckAt` on: a repair reaching back to its queue time makes it due.
    private final class RepairRecorder: WebhookDeliveryStore {
        private struct State {
            var repairs: [(queuedSince: Date, now: Date)] = []
            var stuckAt: Date?
            var repairedAt: Date?
        }
        private let state = Mutex(State())

        var repairs: [(queuedSince: Date, now: Date)] { state.withLock { $0.repairs } }
        var repairedAt: Date? { state.withLock { $0.repairedAt } }
        func leaveWaiting(queuedAt: Date) { state.withLock { $0.stuckAt = queuedAt } }

        func claimWebhookDeliveries(
            endpointID: String,
            owner: String,
            now: Date,
            leaseUntil: Date,
            limit: Int
        ) throws(StorageError)
            -> [ClaimedWebhookDelivery]
        { [] }
        func recordWebhookOutcomes(_ outcomes: [(deliveryID: Int64, outcome: WebhookDeliveryOutcome)], owner: String, now: Date) throws(StorageError)
        {}
        func repairWebhookChains(queuedSince: Date, now: Date) throws(StorageError) -> Int {
            state.withLock { state in
                state.repairs.append((queuedSince, now))
                guard let stuckAt = state.stuckAt, state.repairedAt == nil, queuedSince <= stuckAt else { return 0 }
                state.repairedAt = now
                return 1
            }
        }
        func webhookDeliveries(status: WebhookDeliveryStatus?, after id: Int64, limit: Int) throws(StorageError) -> [WebhookDeliveryRecord] { [] }
        func webhookDeliveryCounts() throws(StorageError) -> [WebhookDeliveryCount] { [] }
    }

    /// Never asked to send: the store has no due delivery.
    private struct NoSender: WebhookSender {
        func send(_ request: HTTPClientRequest, completion: @escaping @Sendable (Result<HTTPClientReply, HTTPClientError>) -> Void) {
            Issue.record("nothing was due")
        }
    }

    private func worker(_ store: RepairRecorder) throws -> WebhookWorker {
        let secret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()
        let value = try #require(StrictJSONParser.strictValue(Array(#"[{"id": "crm", "url": "http://127.0.0.1:9/x", "secret": "\#(secret)"}]"#.utf8)))
        let endpoint = try #require(try WebhookEndpoint.list(value, knownTypes: ["user.created"]).first)
        return WebhookWorker(
            endpoint: endpoint,
            store: store,
            sender: NoSender(),
            time: SystemTime(),
            random: SystemRandom(),
            repairsChains: true,
            log: Logger(level: .warning) { _ in }
        )
    }

    /// How far back a repair reached, in whole milliseconds.
    private func reach(_ repair: (queuedSince: Date, now: Date)) -> TimeInterval {
        (repair.now.timeIntervalSince(repair.queuedSince) * 1000).rounded() / 1000
    }

    @Test func anIdleWorkerMakesOnlyItsFullRepairAndAWokenOneRepairsAWaitingDeliveryWithinASecond() throws {
        let store = RepairRecorder()
        let worker = try worker(store)
        let started = Date()
        worker.start()
        defer { worker.stop() }
        // Claims at about 0, 1, 3 s (the idle back-off): only the first loop's full repair, of the last 10 minutes.
        Thread.sleep(forTimeInterval: 3.5)
        let idle = store.repairs
        #expect(idle.count == 1, "\(idle.map { $0.now.timeIntervalSince(started) })")
        #expect(idle.first.map { reach($0) == WebhookChainRepairSchedule.fullWindow } == true)
        // A request's write on this node appends a delivery that the race leaves waiting, and wakes the worker.
        let written = Date()
        store.leaveWaiting(queuedAt: written)
        worker.wake()
        Thread.sleep(forTimeInterval: 1.5)
        let repairedAt = try #require(store.repairedAt, "the woken worker repairs the recent chains")
        #expect(repairedAt.timeIntervalSince(written) < 1.5)
        // Still active: a recent repair at each round of the next 10 s (about 1, 2, 4 and 8 s after the wake), then
        // none until the next full one.
        Thread.sleep(forTimeInterval: 11)
        let recent = store.repairs.dropFirst().filter { reach($0) == WebhookChainRepairSchedule.recentWindow }
        #expect((3...5).contains(recent.count), "\(recent.map { $0.now.timeIntervalSince(written) })")
        #expect(recent.allSatisfy { $0.now.timeIntervalSince(written) <= WebhookChainRepairSchedule.recentWindow + 0.5 })
    }
}
