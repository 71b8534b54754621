import AccessTokens
import AssociatedDomains
import Email
import FederatedIdentity
import Foundation
import HTTPServer
import Observability
import RateLimiting
import WebAuthnCore
import Webhooks

/// `passkeyd serve --config FILE`: the JSON configuration. Every key is optional; absent keys take the embedded
/// defaults (relying party `localhost`, origin `https://localhost:8443`, data in `data/`).
public struct ServerConfiguration: Sendable {
    public var relyingPartyID = "localhost"
    public var relyingPartyName = "passkeyd"
    public var origins = ["https://localhost:8443"]
    public var httpsAddress: String? = "127.0.0.1:8443"
    public var httpAddress: String?
    public var certificateFile: String?
    public var privateKeyFile: String?
    public var dataDirectory = "data"
    public var sqlitePath: String?
    /// `database.postgres`: a libpq connection string; when set, every node shares this PostgreSQL database.
    public var postgresConnectionString: String?
    /// `database.poolSize`: the most PostgreSQL connections one node opens; nil takes `defaultPoolSize`.
    public var postgresPoolSize: Int?
    /// `database.pooler: "transaction"`: the connection string reaches PostgreSQL through a transaction-mode pooler.
    public var postgresTransactionPooling = false
    /// `database.listen`: where the connection listening for signing-key changes goes (direct or session mode); nil
    /// listens through `database.postgres`, or not at all behind a transaction-mode pooler.
    public var postgresListenConnectionString: String?
    public var sessionLifetimeSeconds = 604_800
    /// `sessions.handoffRedirect`: the path (same origin) a session hand-off link redirects to.
    public var handoffRedirect = "/"
    public var challengeLifetimeSeconds = 300
    public var attestation = AttestationSettings()
    public var algorithms = COSEAlgorithm.defaultOffered
    public var associatedDomains = AssociatedDomains()
    public var wwwDirectory: String? = "www"
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    public var maximumBodySize = 65_536
    /// `limits.maximumPasskeysPerAccount`: registering one more is `409 passkey_limit_reached`.
    public var maximumPasskeysPerAccount = 50
    /// `limits.maximumHeaderSize`: the request line and header section, in bytes.
    public var maximumHeaderSize = 16_384
    /// `limits.readTimeoutSeconds`, `limits.writeTimeoutSeconds`: a whole request must arrive, an answer be taken in.
    public var readTimeoutSeconds = 30
    public var writeTimeoutSeconds = 30
    /// `limits.maximumConnections`: open at once, lowered at start-up to what the open-file limit allows.
    public var maximumConnections = 10_000
    /// `limits.maximumConnectionsPerAddress`; nil takes `defaultConnectionsPerAddress`.
    public var maximumConnectionsPerAddress: Int?
    /// `tls.strictTransportSecurity`: the max-age of HTTPS answers' `Strict-Transport-Security`, nil for no header.
    public var strictTransportSecurityMaxAgeSeconds: Int? = 31_536_000
    public var strictTransportSecurityIncludesSubDomains = false
    public var rateLimits = RateLimits()
    /// Sign in with Apple; nil (no `apple` block) turns the Apple endpoints off.
    public var apple: AppleConfiguration?
    /// `identityProviders`: Sign in with Google and other OpenID Connect issuers, by name (none: those paths are 404).
    public var identityProviders: [IdentityProviderSettings] = []
    /// `webhooks`: where account events are delivered (empty: nowhere).
    public var webhooks: [WebhookEndpoint] = []
    /// `email`: the SMTP relay and the messages passkeyd sends itself; nil sends no mail.
    public var email: EmailSettings?
    /// `log.format`: nil takes text on a terminal and JSON otherwise; `log.level`.
    public var logFormat: LogFormat?
    public var logLevel = LogLevel.info
    /// `node.name`: this node's name in log lines; nil takes the host name.
    public var nodeName: String?
    /// `metrics.enabled`: whether the server counts anything (for `/metrics`); on by default.
    public var metricsEnabled = true
    /// `listen.admin`: the admin API's own listener; nil (off) unless configured.
    public var adminAddress: String?
    /// `admin.keys`: who may call the admin API, by the SHA-256 of their key.
    public var adminKeys: [BackendKey] = []
    /// `recovery.enrollmentURL`; nil for the first origin's `/enroll` (`enrollmentPageURL`).
    public var enrollmentURL: String?
    public var enrollmentLinkLifetimeSeconds = 86_400
    /// How long the restricted session of a recovery code lasts.
    public var recoverySessionLifetimeSeconds = 900

    /// Access tokens and their signing keys.
    public var tokens = TokenSettings()
    /// `passwords`: how imported password hashes are verified.
    public var passwords = PasswordSettings()
    /// The app's backends that may call `POST /introspect`.
    public var backends: [BackendKey] = []
    /// Cross-origin callers of the JSON API.
    public var cors = CORSSettings()
    /// `oidc`: the OpenID provider's clients.
    public var oidc = OIDCSettings()

    public init() {}

    /// `workers`: the threads that run the handlers which may wait (on the store, the network); nil is four per
    /// event loop.
    public var workers: Int?
    /// The worker threads in force.
    public var workerCount: Int { workers ?? 4 * threads }
    /// `limits.maximumQueuedRequests`: the most requests waiting for a worker before `503 server_busy`.
    public var maximumQueuedRequests = 1024
    /// `limits.suspectLane`: the worker pool's lane for addresses with recent refusals; nil (`null`) for none.
    public var suspectLane: SuspectLane? = SuspectLane()

    /// Each worker thread (the suspect lane's too) holds at most one connection at a time; the rest serve the Apple
    /// worker and the purges.
    public var defaultPoolSize: Int { workerCount + (suspectLane?.workers ?? 0) + 2 }

    /// Every origin ceremonies accept: `relyingParty.origins`, then those `associatedDomains` implies (each Android
    /// app's `android:apk-key-hash:` origins, the related origins), each once.
    public var acceptedOrigins: [String] {
        var accepted: [String] = []
        for origin in origins + associatedDomains.origins where !accepted.contains(origin) { accepted.append(origin) }
        return accepted
    }

    /// Where hand-off links point: the relying party's first `https` origin (passkeyd's own pages).
    public var handoffOrigin: String { origins.first { $0.hasPrefix("https://") } ?? "https://\(relyingPartyID)" }

    /// 256 connections per client address; behind trusted proxies every connection comes from a proxy, so the
    /// per-address cap is the global one (the proxy limits its clients), unless their PROXY protocol headers name
    /// each connection's client.
    public var defaultConnectionsPerAddress: Int { rateLimits.readsForwardedFor && !rateLimits.proxyProtocol ? maximumConnections : 256 }

    /// `iss` of the access tokens: `tokens.issuer`, or `https://<relyingParty.id>`.
    public var tokenIssuer: String { tokens.issuer ?? "https://" + relyingPartyID }

    /// `aud` of the access tokens: `tokens.audiences`, or the relying party ID.
    public var tokenAudiences: [String] { tokens.audiences ?? [relyingPartyID] }

    /// The origins answered with CORS headers: `cors.allowedOrigins`, or the relying party's `https` origins.
    public var corsAllowedOrigins: [String] { cors.allowedOrigins ?? origins.filter { $0.hasPrefix("https://") } }

    /// The SQLite file: `database.sqlite`, or `<data>/passkeyd.sqlite`.
    public var databasePath: String { sqlitePath ?? dataDirectory + "/passkeyd.sqlite" }
}
