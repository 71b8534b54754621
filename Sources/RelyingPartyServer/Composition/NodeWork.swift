import ConfigurationFile
import ConfigurationReading
import CryptoCore
import FederatedIdentity
import Observability
import OutboundHTTP
import Storage

/// A node's background work and its reload, beside the request side (`RelyingPartyServer`): the metadata fetch,
/// Apple's worker (keys, code exchanges, revocations), the identity providers' key fetches, webhook deliveries, the
/// mail outbox's sending thread and the signing-key worker, and what a `SIGHUP` swaps (`reload`). `passkeyd serve`
/// starts the deliveries before it listens and the refreshes once it listens, and stops them all once the listeners
/// have drained; a request only wakes the deliveries after a write (`wake`).
public final class NodeWork: Sendable {
    /// The configuration the node started with (`settings` holds what a reload changed since).
    let configuration: ServerConfiguration
    /// The settings in force, which `reload` replaces.
    let settings: SettingsInForce
    let time: any TimeSource
    let log: Logger
    /// The background fetch of the metadata BLOB.
    let metadata: MetadataRefresher
    /// Sign in with Apple; nil without an `apple` block.
    let apple: AppleIntegration?
    /// Sign in with Google and other OpenID providers: their keys are fetched ahead of the first sign-in.
    let identityProviders: IdentityProviders
    /// Webhook delivery (`webhooks`); a reload with other endpoints replaces it.
    let webhooks: WebhookDispatcherInForce
    /// The mail outbox's sending thread (`email`); nil sends no mail.
    let mailWorker: MailWorker?
    /// Access tokens, their keys and the JWKS: the signing-key worker keeps the keys current.
    let tokens: AccessTokenService

    init(
        configuration: ServerConfiguration,
        settings: SettingsInForce,
        time: any TimeSource,
        log: Logger,
        metadata: MetadataRefresher,
        apple: AppleIntegration?,
        identityProviders: IdentityProviders,
        webhooks: WebhookDispatcherInForce,
        mailWorker: MailWorker?,
        tokens: AccessTokenService
    ) {
        self.configuration = configuration
        self.settings = settings
        self.time = time
        self.log = log
        self.metadata = metadata
        self.apple = apple
        self.identityProviders = identityProviders
        self.webhooks = webhooks
        self.mailWorker = mailWorker
        self.tokens = tokens
    }

    /// Starts what delivers the outboxes: the webhook endpoints' threads (after making the store's subscriptions the
    /// configured endpoints) and the mail outbox's sending thread. Before the node listens, so that the first write's
    /// events find their subscriptions.
    public func startDeliveries() throws(StorageError) {
        try startWebhooks()
        startMail()
    }

    /// Starts what keeps fetched material current, once the node listens: Apple's worker, the identity providers' first
    /// key fetch, the metadata BLOB's fetch through `client`, and the signing-key worker.
    public func startRefreshes(client: HTTPClient) {
        startAppleWorker()
        startIdentityProviders()
        metadata.start(client: client)
        startKeyWorker()
    }

    /// Stops every worker, each after its work in flight (once the listeners have drained).
    public func stop() {
        stopAppleWorker()
        metadata.stop()
        stopWebhooks()
        stopMail()
        stopKeyWorker()
    }

    /// Makes the deliveries look for due work now: a write may have appended events or queued mail.
    func wake() {
        webhooks.wake()
        mailWorker?.wake()
    }
}
