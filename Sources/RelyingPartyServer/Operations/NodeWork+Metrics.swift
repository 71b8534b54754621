import Foundation
import Observability
import Storage

extension NodeWork {
    /// The values read at each scrape: what the store holds (challenges outstanding, live sessions, webhook deliveries
    /// by endpoint and status), the metadata BLOB's age and `nextUpdate`, the signing key's age, Apple's key fetches.
    /// A store that does not answer leaves its series out of that scrape and counts a store error (in `metrics`).
    func collectMetrics(into registry: MetricsRegistry, store: any PasskeyStore, metrics: ServerMetrics?) {
        registry.collect(
            "passkeyd_challenges_outstanding",
            "Stored challenges issued and neither used nor expired (all nodes of the store); a discoverable sign-in's sealed challenge is not stored."
        ) {
            [weak self, store, weak metrics] in
            guard let self, let status = self.storeStatus(store, metrics: metrics) else { return [] }
            return [([], Double(status.outstandingChallenges))]
        }
        registry.collect("passkeyd_sessions_active", "Sessions not yet expired (all nodes of the store).") { [weak self, store, weak metrics] in
            guard let self, let status = self.storeStatus(store, metrics: metrics) else { return [] }
            return [([], Double(status.liveSessions))]
        }
        registry.collect(
            "passkeyd_webhook_deliveries",
            "Webhook deliveries in the store by endpoint and status: pending is the queue, dead the deliveries given up.",
            labels: ["endpoint", "status"]
        ) { [weak self, store, weak metrics] in
            guard self != nil else { return [] }
            do {
                return try store.webhookDeliveryCounts().sorted { ($0.endpointID, $0.status.rawValue) < ($1.endpointID, $1.status.rawValue) }
                    .map { ([$0.endpointID, $0.status.rawValue], Double($0.count)) }
            } catch {
                metrics?.storeErrors.increment()
                return []
            }
        }
        registry.collect(
            "passkeyd_mail_messages",
            "Messages of the mail outbox by status: pending is the queue, dead the messages given up.",
            labels: ["status"]
        ) { [weak self, store, weak metrics] in
            guard let self, configuration.email != nil else { return [] }
            do {
                return try store.mailOutboxCounts().sorted { $0.key.rawValue < $1.key.rawValue }.map { ([$0.key.rawValue], Double($0.value)) }
            } catch {
                metrics?.storeErrors.increment()
                return []
            }
        }
        registry.collect("passkeyd_metadata_age_seconds", "Seconds since the FIDO metadata BLOB in force was taken in.") { [weak self] in
            guard let self else { return [] }
            let settings = settings.withLock { $0 }
            guard settings.metadata != nil else { return [] }
            return [([], max(0, time.now.timeIntervalSince(settings.metadataTakenAt)))]
        }
        registry.collect("passkeyd_metadata_next_update_timestamp_seconds", "The nextUpdate of the metadata BLOB in force (Unix time).") {
            [weak self] in
            guard let metadata = self?.settings.withLock({ $0.metadata }) else { return [] }
            return [([], metadata.nextUpdate.timeIntervalSince1970)]
        }
        registry.collect("passkeyd_metadata_blob_number", "The serial number (no) of the metadata BLOB in force.") { [weak self] in
            guard let metadata = self?.settings.withLock({ $0.metadata }) else { return [] }
            return [([], Double(metadata.number))]
        }
        registry.collect(
            "passkeyd_signing_key_age_seconds",
            "Seconds since the access-token signing key in force started signing (none while no key is active)."
        ) { [weak self] in
            guard let self else { return [] }
            let now = time.now
            guard let key = tokens.ring.activeKey(at: now) else { return [] }
            // From its activation: a standby is made a rotation ahead of it.
            return [([], max(0, now.timeIntervalSince(key.record.activatesAt)))]
        }
        registry.collect(
            "passkeyd_apple_key_fetches_total",
            "Fetches of Apple's identity-token keys, by outcome (ok, failed).",
            type: .counter,
            labels: ["outcome"]
        ) {
            [weak self] in
            guard let counts = self?.apple?.keyCache.fetchCounts else { return [] }
            return [(["ok"], Double(counts.fetches - counts.failures)), (["failed"], Double(counts.failures))]
        }
    }

    private func storeStatus(_ store: any PasskeyStore, metrics: ServerMetrics?) -> StoreStatus? {
        do {
            return try store.status(now: time.now)
        } catch {
            metrics?.storeErrors.increment()
            return nil
        }
    }
}
