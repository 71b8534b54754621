import Foundation

extension InMemoryStore {
    public func claimWebhookDeliveries(
        endpointID: String,
        owner: String,
        now: Date,
        leaseUntil: Date,
        limit: Int
    ) throws(StorageError)
        -> [ClaimedWebhookDelivery]
    {
        state.withLock { state in
            let due = state.webhookDeliveries.values
                .filter { delivery in
                    guard delivery.endpointID == endpointID, delivery.status == .pending, let next = delivery.nextAttemptAt else { return false }
                    return next <= now && delivery.leaseUntil <= now && !state.hasEarlierPending(than: delivery)
                }
                .sorted { ($0.nextAttemptAt ?? now, $0.eventID) < ($1.nextAttemptAt ?? now, $1.eventID) }
                .prefix(max(0, limit))
            let events = Dictionary(state.events.map { ($0.id, $0) }) { first, _ in first }
            return due.compactMap { delivery -> ClaimedWebhookDelivery? in
                guard let event = events[delivery.eventID] else { return nil }
                var claimed = delivery
                claimed.leaseOwner = owner
                claimed.leaseUntil = leaseUntil
                claimed.updatedAt = now
                state.webhookDeliveries[delivery.id] = claimed
                return ClaimedWebhookDelivery(delivery: claimed, event: event)
            }
        }
    }

    public func recordWebhookOutcomes(
        _ outcomes: [(deliveryID: Int64, outcome: WebhookDeliveryOutcome)],
        owner: String,
        now: Date
    ) throws(StorageError) {
        state.withLock { state in
            for (id, outcome) in outcomes {
                guard var delivery = state.webhookDeliveries[id], delivery.status == .pending, delivery.leaseOwner == owner else { continue }
                delivery.leaseOwner = nil
                delivery.leaseUntil = WebhookDeliveryRecord.noLease
                delivery.updatedAt = now
                switch outcome {
                case .released:
                    break
                case .delivered(let status):
                    delivery.record(attemptAt: now, status: status, error: nil)
                    delivery.status = .delivered
                    delivery.nextAttemptAt = nil
                case .dead(let status, let error):
                    delivery.record(attemptAt: now, status: status, error: error)
                    delivery.status = .dead
                    delivery.nextAttemptAt = nil
                case .retry(let next, let status, let error):
                    delivery.record(attemptAt: now, status: status, error: error)
                    delivery.nextAttemptAt = next
                }
                state.webhookDeliveries[id] = delivery
                if delivery.status != .pending { state.promoteChain(of: delivery, now: now) }
            }
        }
    }

    public func repairWebhookChains(queuedSince: Date, now: Date) throws(StorageError) -> Int {
        state.withLock { state in
            let orphans = state.webhookDeliveries.values.filter {
                $0.status == .pending && $0.nextAttemptAt == nil && $0.queuedAt >= queuedSince && !state.hasEarlierPending(than: $0)
            }
            for orphan in orphans {
                state.webhookDeliveries[orphan.id]?.nextAttemptAt = now
                state.webhookDeliveries[orphan.id]?.updatedAt = now
            }
            return orphans.count
        }
    }

    public func webhookDeliveries(status: WebhookDeliveryStatus?, after id: Int64, limit: Int) throws(StorageError) -> [WebhookDeliveryRecord] {
        state.withLock { state in
            Array(
                state.webhookDeliveries.values.filter { $0.id > id && (status == nil || $0.status == status) }.sorted { $0.id < $1.id }
                    .prefix(max(0, limit))
            )
        }
    }

    public func webhookDeliveryCounts() throws(StorageError) -> [WebhookDeliveryCount] {
        state.withLock { state in
            var counts: [String: [WebhookDeliveryStatus: Int]] = [:]
            for delivery in state.webhookDeliveries.values {
                counts[delivery.endpointID, default: [:]][delivery.status, default: 0] += 1
            }
            return counts.flatMap { endpoint, byStatus in
                byStatus.map { WebhookDeliveryCount(endpointID: endpoint, status: $0.key, count: $0.value) }
            }
        }
    }
}

extension InMemoryStore.State {
    /// Whether an earlier delivery of the same user to the same endpoint is pending (never for a delivery without a user).
    func hasEarlierPending(than delivery: WebhookDeliveryRecord) -> Bool {
        guard let userID = delivery.userID else { return false }
        return webhookDeliveries.values.contains {
            $0.endpointID == delivery.endpointID && $0.userID == userID && $0.status == .pending && $0.eventID < delivery.eventID
        }
    }

    /// A pending delivery of `event` to every subscribed endpoint, first in its chain or waiting.
    mutating func queueWebhookDeliveries(of event: EventRecord) {
        for subscription in webhookSubscriptions.values.sorted(by: { $0.endpointID < $1.endpointID })
        where subscription.eventTypes?.contains(event.type) ?? true {
            let waits =
                event.userID.map { userID in
                    webhookDeliveries.values.contains { $0.endpointID == subscription.endpointID && $0.userID == userID && $0.status == .pending }
                } ?? false
            lastWebhookDeliveryID += 1
            webhookDeliveries[lastWebhookDeliveryID] = WebhookDeliveryRecord(
                id: lastWebhookDeliveryID,
                eventID: event.id,
                endpointID: subscription.endpointID,
                userID: event.userID,
                status: .pending,
                attempts: 0,
                queuedAt: event.occurredAt,
                nextAttemptAt: waits ? nil : event.occurredAt,
                updatedAt: event.occurredAt
            )
        }
    }

    /// Makes the first pending delivery of `delivery`'s chain due at `now` when it waits.
    mutating func promoteChain(of delivery: WebhookDeliveryRecord, now: Date) {
        guard let userID = delivery.userID else { return }
        let next = webhookDeliveries.values.filter { $0.endpointID == delivery.endpointID && $0.userID == userID && $0.status == .pending }
            .min { $0.eventID < $1.eventID }
        guard let next, next.nextAttemptAt == nil else { return }
        webhookDeliveries[next.id]?.nextAttemptAt = now
        webhookDeliveries[next.id]?.updatedAt = now
    }
}

extension WebhookDeliveryRecord {
    /// Counts an attempt made at `attemptAt` with its reply's status (if any) and failure code (nil on success).
    mutating func record(attemptAt: Date, status: Int?, error: String?) {
        attempts += 1
        lastAttemptAt = attemptAt
        lastStatus = status
        lastError = error
    }
}
