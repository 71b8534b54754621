import ConfigurationFile
import FederatedIdentity
import OutboundHTTP
import Storage

/// The node's background work as the server's embedders and tests reach it: one worker at a time, and the reload
/// (`passkeyd serve` starts and stops `work` whole). Each forwards to `work`.
extension RelyingPartyServer {
    /// The configuration the server started with (`settings` holds what a reload changed since).
    var configuration: ServerConfiguration { work.configuration }
    /// Access tokens, their keys and the JWKS.
    var tokens: AccessTokenService { work.tokens }
    /// Sign in with Apple; nil without an `apple` block.
    var apple: AppleIntegration? { work.apple }
    /// The metadata fetch's client and worker.
    var metadataRefresh: InForce<MetadataRefresher.State> { work.metadata.state }

    /// Takes up the reloadable parts of `replacement` (`NodeWork.reload`).
    public func reload(_ replacement: ServerConfiguration) throws -> [String] { try work.reload(replacement) }

    /// Starts fetching `attestation.metadata.url` in the background through `client` (`MetadataRefresher.start`).
    public func startMetadataRefresh(client: HTTPClient) { work.metadata.start(client: client) }
    /// Stops the background fetch (after a fetch in progress).
    public func stopMetadataRefresh() { work.metadata.stop() }
    /// Fetches the metadata BLOB once (`MetadataRefresher.refresh`).
    @discardableResult
    func refreshMetadata(client: HTTPClient) -> MetadataRefresher.Outcome { work.metadata.refresh(client: client) }

    /// Starts the webhook endpoints' delivery threads (`NodeWork.startWebhooks`).
    public func startWebhooks() throws(StorageError) { try work.startWebhooks() }
    /// Stops the delivery threads after their attempts in flight.
    public func stopWebhooks() { work.stopWebhooks() }
    /// Makes the delivery threads look for due deliveries now (tests; a write wakes them through `NodeWork.wake`).
    func wakeWebhooks() { work.webhooks.wake() }

    /// Starts the mail outbox's sending thread (nothing without `email`).
    public func startMail() { work.startMail() }
    /// Stops the sending thread after the send in flight.
    public func stopMail() { work.stopMail() }

    /// Starts the Apple background worker (`NodeWork.startAppleWorker`).
    public func startAppleWorker() { work.startAppleWorker() }
    /// Stops the Apple background worker and waits for its current round.
    public func stopAppleWorker() { work.stopAppleWorker() }
    /// Starts a fetch of Apple's keys when they are missing or due (tests).
    package func refreshAppleKeys() { work.refreshAppleKeys() }
    /// Whether Apple's keys are cached and unexpired, and how many key fetches have completed (tests wait on it).
    package var appleKeyStatus: (cached: Bool, completedFetches: Int) { work.appleKeyStatus }
    /// Runs one round of Apple background work on the calling thread (tests).
    package func processDueAppleWork() { work.processDueAppleWork() }

    /// Starts the signing-key worker (`NodeWork.startKeyWorker`).
    public func startKeyWorker() { work.startKeyWorker() }
    /// Stops the signing-key worker and waits for its current round.
    public func stopKeyWorker() { work.stopKeyWorker() }
    /// Runs one round of the signing-key worker on the calling thread (tests).
    @discardableResult
    package func processDueKeyWork() -> Bool { work.processDueKeyWork() }

    /// Starts the first fetch of every configured identity provider's keys (`NodeWork.startIdentityProviders`).
    public func startIdentityProviders() { work.startIdentityProviders() }
    /// Whether the named provider's keys are cached and unexpired, and how many fetches completed (tests wait on it).
    package func identityProviderKeyStatus(_ name: String) -> (cached: Bool, completedFetches: Int) {
        work.identityProviderKeyStatus(name)
    }
}
