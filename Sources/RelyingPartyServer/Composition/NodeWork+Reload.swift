import ConfigurationFile
import Foundation
import Storage

extension NodeWork {
    /// `SIGHUP`: takes up `replacement`'s associated-domain files (and the origins they imply), attestation trust
    /// material, metadata BLOB and its background fetch (URL and interval), webhook endpoints and admin keys. Everything is built and verified before anything is
    /// swapped: when a part does not load, this throws and the settings in force stay. Requests in progress finish
    /// with the settings they started with. Returns the keys that differ from the start-up configuration but only
    /// take effect after a restart (`ServerConfiguration.keysNeedingRestart`).
    public func reload(_ replacement: ServerConfiguration) throws -> [String] {
        // Only the reloadable parts are taken; the rest stays as it started (and is reported below).
        var effective = configuration
        effective.associatedDomains = replacement.associatedDomains
        effective.attestation = replacement.attestation
        effective.adminKeys = replacement.adminKeys
        let reloaded = try ReloadableSettings(effective, time: time)
        let current = webhooks.withLock { $0 }
        // Webhook workers are replaced whenever there are endpoints before or after (their secrets or CA files may
        // have changed); the old ones finish their attempts in flight first.
        let dispatcher =
            current.endpoints.isEmpty && replacement.webhooks.isEmpty
            ? nil
            : try current.replacement(endpoints: replacement.webhooks)
        let previous = settings.withLock { settings in
            defer { settings = reloaded }
            return settings.attestation
        }
        if MetadataRefresher.schedule(previous) != MetadataRefresher.schedule(reloaded.attestation) { metadata.restart() }
        if let dispatcher {
            current.stop()
            webhooks.withLock { $0 = dispatcher }
            do {
                try dispatcher.start()
            } catch {
                // The reload is in force; only the delivery threads are missing, until the next reload or restart.
                log.error("webhooks: the reloaded endpoints could not start (\(error.code)); deliveries wait for the next reload", event: "reload")
            }
        }
        return replacement.keysNeedingRestart(comparedWith: configuration)
    }
}
