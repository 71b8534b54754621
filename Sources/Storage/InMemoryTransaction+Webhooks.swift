import Foundation

extension InMemoryTransaction {
    func webhookSubscriptions() throws(StorageError) -> [WebhookSubscription] {
        try run { state in state.webhookSubscriptions.values.sorted { $0.endpointID < $1.endpointID } }
    }

    func setWebhookSubscription(_ subscription: WebhookSubscription) throws(StorageError) {
        try run { state throws(StorageError) in
            try subscription.validate()
            state.webhookSubscriptions[subscription.endpointID] = subscription
        }
    }

    func removeWebhookSubscription(endpointID: String, reason: String, now: Date) throws(StorageError) -> Int {
        try run { state in
            state.webhookSubscriptions[endpointID] = nil
            let abandoned = state.webhookDeliveries.values.filter { $0.endpointID == endpointID && $0.status == .pending }
            for var delivery in abandoned {
                delivery.status = .dead
                delivery.lastError = reason
                delivery.nextAttemptAt = nil
                delivery.leaseOwner = nil
                delivery.leaseUntil = WebhookDeliveryRecord.noLease
                delivery.updatedAt = now
                state.webhookDeliveries[delivery.id] = delivery
            }
            return abandoned.count
        }
    }

    func webhookDelivery(id: Int64) throws(StorageError) -> WebhookDeliveryRecord? {
        try run { $0.webhookDeliveries[id] }
    }

    func retryWebhookDelivery(id: Int64, now: Date) throws(StorageError) -> Bool {
        try run { state in
            guard var delivery = state.webhookDeliveries[id], delivery.status == .dead else { return false }
            delivery.status = .pending
            delivery.nextAttemptAt = now
            delivery.queuedAt = now
            delivery.attempts = 0
            delivery.leaseOwner = nil
            delivery.leaseUntil = WebhookDeliveryRecord.noLease
            delivery.updatedAt = now
            state.webhookDeliveries[id] = delivery
            return true
        }
    }
}
