import CryptoCore
import Foundation
import HTTPServer
import Storage
import WebAuthnCore

/// The relying-party server: routes HTTP requests to the ceremony, account and well-known handlers. It is the
/// only place that composes the verification core, storage and HTTP; handlers are testable without sockets.
public final class RelyingPartyServer: HTTPHandler {
    let configuration: ServerConfiguration
    let store: any PasskeyStore
    let relyingParty: RelyingParty
    let time: any TimeSource
    let random: any RandomSource
    let challenges: ChallengeService
    let sessions: SessionService
    let keys = CredentialKeyCache()
    let wellKnown: WellKnownFiles
    let staticFiles: StaticFiles?
    /// The FIDO metadata BLOB of the configuration, verified at start-up.
    let metadata: MetadataBLOB?
    /// The decoy allowCredentials of unknown usernames, stable and unguessable under the server secret.
    let decoys: DecoyCredentials
    let log: @Sendable (String) -> Void
    /// Ceremony and Apple requests per client address; failed sign-in verifications per credential; challenges held
    /// per address.
    let addressLimiter: RateLimiter
    let accountLimiter: RateLimiter
    let challengeLimiter: RateLimiter
    /// Sign in with Apple; nil without an `apple` block.
    let apple: AppleIntegration?
    /// Webhook delivery (`webhooks`); its workers run from `startWebhooks` to `stopWebhooks`.
    let webhooks: WebhookDispatcher
    /// Access tokens, their keys and the JWKS.
    let tokens: AccessTokenService
    let cors: CORSPolicy

    /// `appleSetup` is required when the configuration has an `apple` block, and ignored otherwise; `webhookClient`
    /// when it lists `webhooks`. `enumerationSecret` is the server secret: it derives the decoy credentials of unknown
    /// usernames and, through HKDF, the key that seals the signing keys in the store.
    public convenience init(
        configuration: ServerConfiguration,
        store: any PasskeyStore,
        time: any TimeSource = SystemTime(),
        random: any RandomSource = SystemRandom(),
        enumerationSecret: [UInt8],
        appleSetup: AppleSetup? = nil,
        webhookClient: HTTPClient? = nil,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(ConfigurationError) {
        try self.init(
            configuration: configuration,
            store: store,
            time: time,
            random: random,
            enumerationSecret: enumerationSecret,
            appleSetup: appleSetup,
            webhookSender: webhookClient,
            log: log
        )
    }

    /// As the public initializer, with any `WebhookSender` (tests give a stand-in).
    init(
        configuration: ServerConfiguration,
        store: any PasskeyStore,
        time: any TimeSource = SystemTime(),
        random: any RandomSource = SystemRandom(),
        enumerationSecret: [UInt8],
        appleSetup: AppleSetup? = nil,
        webhookSender: (any WebhookSender)?,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(ConfigurationError) {
        self.configuration = configuration
        self.store = store
        self.time = time
        self.random = random
        do {
            decoys = try DecoyCredentials(secret: enumerationSecret)
        } catch {
            throw ConfigurationError(.invalidValue, key: "enumerationSecret", "no P-256 key could be made for decoy credentials")
        }
        self.log = log
        relyingParty = RelyingParty(
            id: configuration.relyingPartyID,
            name: configuration.relyingPartyName,
            origins: configuration.acceptedOrigins,
            algorithms: configuration.algorithms,
            time: time
        )
        challenges = ChallengeService(
            store: store,
            random: random,
            time: time,
            lifetime: TimeInterval(configuration.challengeLifetimeSeconds),
            purge: ExpiredRecordPurge(store: store, log: log)
        )
        tokens = try AccessTokenService(
            configuration: configuration,
            store: store,
            serverSecret: enumerationSecret,
            time: time,
            random: random,
            log: log
        )
        cors = CORSPolicy(allowedOrigins: Set(configuration.corsAllowedOrigins))
        sessions = SessionService(
            store: store,
            random: random,
            time: time,
            lifetime: TimeInterval(configuration.sessionLifetimeSeconds),
            accessTokens: tokens
        )
        wellKnown = try WellKnownFiles(configuration.associatedDomains, loadedAt: time.now)
        staticFiles = configuration.wwwDirectory.map(StaticFiles.init(root:))
        let limits = configuration.rateLimits
        addressLimiter = RateLimiter(rule: .init(perMinute: limits.perAddressPerMinute, burst: limits.perAddressBurst), capacity: limits.maximumKeys)
        accountLimiter = RateLimiter(rule: .init(perMinute: limits.perAccountPerMinute, burst: limits.perAccountBurst), capacity: limits.maximumKeys)
        let outstanding = Double(limits.outstandingChallengesPerAddress)
        challengeLimiter = RateLimiter(
            rule: .init(perMinute: outstanding * 60 / Double(configuration.challengeLifetimeSeconds), burst: outstanding),
            capacity: limits.maximumKeys
        )
        metadata = try configuration.attestation.verifiedMetadata(at: time.now)
        if let appleConfiguration = configuration.apple {
            guard let appleSetup else { throw ConfigurationError(.missingValue, key: "apple.privateKey", "was not loaded") }
            apple = try AppleIntegration(configuration: appleConfiguration, setup: appleSetup, store: store, time: time, log: log)
        } else {
            apple = nil
        }
        webhooks = try WebhookDispatcher(
            endpoints: configuration.webhooks,
            store: store,
            sender: webhookSender,
            time: time,
            random: random,
            log: log
        )
        // The signing keys: made on the first start, loaded on every start (the worker keeps them current). A store that
        // cannot be reached now is retried by the worker and by the first request that needs a key.
        tokens.updateKeys()
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        do {
            response = try respond(to: request)
            response.headers.add("X-Content-Type-Options", "nosniff")
        } catch {
            if error.status >= 500 {
                log("\(request.method) \(Self.route(of: request.path)): \(error.code)\(error.detail.map { " (\($0))" } ?? "")")
            }
            response = error.response
        }
        // Every answer of a route, errors included, carries the CORS headers (a preflight has its own).
        if request.method != "OPTIONS", Self.isRouted(request.path) {
            for (name, value) in cors.headers(for: request) { response.headers.add(name, value) }
        }
        return response
    }

    /// Whether `request` is answered from memory, on the event-loop thread: a route flagged `.answersFromMemory`, a
    /// preflight or another method's `405`, and what the table does not route (the well-known files, which are built
    /// at start-up, and the static files of `www`). Everything else goes to the worker pool.
    public func answersOnLoop(_ request: HTTPRequest) -> Bool {
        switch Self.dispatch(request.method == "HEAD" ? "GET" : request.method, request.path) {
        case .route(let route, _): route.flags.contains(.answersFromMemory)
        case .wrongMethod, .unrouted: true
        }
    }

    /// Dispatches by the route table (`RelyingPartyServer+Routes.swift`), applying the route's flags.
    private func respond(to request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let method = request.method == "HEAD" ? "GET" : request.method
        switch Self.dispatch(method, request.path) {
        case .route(let route, let parameters):
            if route.flags.contains(.rateLimitedPerAddress) { try limit(addressLimiter, key: clientAddress(request)) }
            // Stale credentials are refused here, for every route at once: only a request without any may act signed out;
            // an access token only where the route allows one (`403 insufficient_scope` elsewhere).
            let session =
                route.flags.contains(.sessionIgnored)
                ? nil : try sessions.resolve(request, allowsAccessToken: route.flags.contains(.allowsAccessToken))
            if session?.session.method == .recoveryCode, !route.flags.contains(.recoverySessionAllowed) {
                throw ServerError(.recoverySessionRestricted)
            }
            var response = try route.handler(self, request, RouteContext(parameters: parameters, session: session))
            // A write may have appended events: their deliveries are due now.
            if method != "GET" { webhooks.wake() }
            if route.flags.contains(.noStore) { response.headers.add("Cache-Control", "no-store") }
            return response
        case .wrongMethod(let allowed) where method == "OPTIONS":
            return cors.preflight(request, methods: allowed)
        case .wrongMethod(let allowed):
            var error = ServerError(.methodNotAllowed)
            error.headers = [("Allow", (allowed.contains("GET") ? allowed + ["HEAD"] : allowed).joined(separator: ", "))]
            throw error
        case .unrouted:
            // The admin API is served on `listen.admin` only, never here (not even a static file under /admin).
            if request.path == "/admin" || request.path.hasPrefix("/admin/") { throw ServerError(.notFound) }
            if method == "GET", let response = wellKnown.response(to: request) { return response }
            if method == "GET", var response = staticFiles?.response(for: request.path) {
                // A module script is fetched in CORS mode: an allowed origin's page may import `/passkeyd.js` from here.
                for (name, value) in cors.headers(for: request) { response.headers.add(name, value) }
                return response
            }
            throw ServerError(.notFound)
        }
    }

    /// The client a request is limited as: the peer, or (behind a trusted proxy) the last entry of the last
    /// `X-Forwarded-For` field (a proxy may add its own field after the client's) when it is an IP address; an IPv6
    /// client by its /64 (one host may use any address of it), so that the key is bounded and a host has one.
    func clientAddress(_ request: HTTPRequest) -> String {
        if configuration.rateLimits.trustForwardedFor, let forwarded = request.headers.values("x-forwarded-for").last,
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces),
            let address = PeerAddress(literal: last)
        {
            return address.description
        }
        return PeerAddress(literal: request.remoteAddress)?.description ?? String(request.remoteAddress.prefix(64))
    }

    /// How many keys each limiter holds (tests check the capacity).
    package var rateLimiterSizes: (addresses: Int, failures: Int, challenges: Int) {
        (addressLimiter.count, accountLimiter.count, challengeLimiter.count)
    }

    /// Refuses with `429 rate_limited` and `Retry-After` when `key` has used up its bucket.
    func limit(_ limiter: RateLimiter, key: String) throws(ServerError) {
        guard let retryAfter = limiter.take(key, now: time.now) else { return }
        var error = ServerError(.rateLimited)
        error.headers = [("Retry-After", String(retryAfter))]
        throw error
    }
}
