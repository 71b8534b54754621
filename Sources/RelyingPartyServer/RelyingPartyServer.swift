import Accounts
import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Email
import FederatedIdentity
import Foundation
import HTTPEdge
import HTTPServer
import Observability
import OutboundHTTP
import RateLimiting
import Storage
import WebAuthnCore

/// The relying-party server: the composition root of a node and its request side. Its initializer builds the shared
/// services, the feature controllers (`Controllers`) and the node's background work (`NodeWork`) from the
/// configuration; `handle` applies what every route shares (rate limits, session resolution, CORS, request IDs,
/// metrics, the request log) and hands the request to its controller by the route table. Handlers are testable without
/// sockets.
public final class RelyingPartyServer: HTTPHandler {
    let sessions: SessionService
    /// The associated-domain files, trust material and metadata in force (a reload replaces them).
    let settings: SettingsInForce
    /// The features, each holding what it uses; the route table names them.
    let controllers: Controllers
    let staticFiles: StaticFiles?
    let log: Logger
    /// The `X-Request-Id` of every answer.
    let requestIDs: RequestIDs
    /// What the server counts (nil when `metrics.enabled` is false).
    let metrics: ServerMetrics?
    /// Ceremony and Apple requests per client address; failed sign-in verifications per credential; challenges held
    /// per address.
    let limits: RequestLimits
    let cors: CORSPolicy
    /// The node's background workers and its reload; a write wakes its deliveries.
    public let work: NodeWork

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
        metrics: MetricsRegistry? = MetricsRegistry(),
        log: Logger = .discarding
    ) throws(ConfigurationError) {
        try self.init(
            configuration: configuration,
            store: store,
            time: time,
            random: random,
            enumerationSecret: enumerationSecret,
            appleSetup: appleSetup,
            webhookSender: webhookClient,
            outbound: webhookClient,
            metrics: metrics,
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
        outbound: HTTPClient? = nil,
        metrics: MetricsRegistry? = MetricsRegistry(),
        log: Logger = .discarding
    ) throws(ConfigurationError) {
        let decoys: DecoyCredentials
        do {
            decoys = try DecoyCredentials(secret: enumerationSecret)
        } catch {
            throw ConfigurationError(.invalidValue, key: "enumerationSecret", "no P-256 key could be made for decoy credentials")
        }
        self.log = log
        requestIDs = RequestIDs(random: random)
        self.metrics = metrics.map(ServerMetrics.init)
        settings = SettingsInForce(try ReloadableSettings(configuration, time: time))
        let accounts = SignedInAccounts(store: store, settings: settings)
        let seal: ChallengeSeal
        do {
            seal = try ChallengeSeal(serverSecret: enumerationSecret)
        } catch {
            throw ConfigurationError(.invalidValue, key: "enumerationSecret", "no key could be derived for sealed challenges")
        }
        let challenges = ChallengeService(
            store: store,
            seal: seal,
            random: random,
            time: time,
            lifetime: TimeInterval(configuration.challengeLifetimeSeconds),
            purge: ExpiredRecordPurge(store: store, passwordRetirement: configuration.passwords.retirement, log: log)
        )
        let tokens = try AccessTokenService(
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
        let signInAnswers = SignInAnswers(sessions: sessions, tokens: tokens)
        staticFiles = configuration.wwwDirectory.map(StaticFiles.init(root:))
        limits = RequestLimits(
            configuration.rateLimits,
            challengeLifetime: configuration.challengeLifetimeSeconds,
            time: time,
            shared: store as? any SharedLimitStore,
            outage: SharedLimitOutage(log: log, fallbacks: self.metrics?.rateLimitFallbacks),
            refusals: self.metrics?.rateLimited
        )
        let apple: AppleIntegration?
        if let appleConfiguration = configuration.apple {
            guard let appleSetup else { throw ConfigurationError(.missingValue, key: "apple.privateKey", "was not loaded") }
            apple = try AppleIntegration(configuration: appleConfiguration, setup: appleSetup, store: store, time: time, log: log)
        } else {
            apple = nil
        }
        let identityProviders = try IdentityProviders(configuration.identityProviders, client: outbound, random: random, time: time, log: log)
        let keys = CredentialKeyCache()
        let signInRecords = SignInRecordCache(time: time)
        let assertions = AssertionVerifier(
            store: store,
            time: time,
            challenges: challenges,
            keys: keys,
            records: signInRecords,
            decoys: decoys,
            settings: settings,
            limits: limits,
            metrics: self.metrics,
            log: log
        )
        let mailComposer = try configuration.email.map { settings throws(ConfigurationError) in
            try MailComposer(settings: settings, appName: configuration.relyingPartyName, random: random)
        }
        let mailAttempts = self.metrics?.mailAttempts
        let mailWorker = try configuration.email.map { settings throws(ConfigurationError) in
            try MailWorker(settings: settings, store: store, time: time, random: random, attempts: mailAttempts, log: log)
        }
        let accountService = AccountService(
            store: store,
            time: time,
            random: random,
            keys: keys,
            signInRecords: signInRecords,
            apple: apple,
            enrollmentLinkLifetime: TimeInterval(configuration.enrollmentLinkLifetimeSeconds),
            log: log,
            mail: mailComposer
        )
        let webhooks = WebhookDispatcherInForce(
            try WebhookDispatcher(
                endpoints: configuration.webhooks,
                store: store,
                sender: webhookSender,
                time: time,
                random: random,
                attempts: self.metrics?.webhookAttempts,
                log: log
            )
        )
        // The signing keys: made on the first start, loaded on every start (the worker keeps them current). A store that
        // cannot be reached now is retried by the worker and by the first request that needs a key.
        controllers = Controllers(
            configuration: configuration,
            store: store,
            time: time,
            random: random,
            sessions: sessions,
            challenges: challenges,
            tokens: tokens,
            accounts: accounts,
            accountService: accountService,
            settings: settings,
            limits: limits,
            answers: signInAnswers,
            assertions: assertions,
            decoys: decoys,
            staticFiles: staticFiles,
            apple: apple,
            webhooks: webhooks,
            metrics: self.metrics,
            log: log,
            identityProviders: identityProviders
        )
        work = NodeWork(
            configuration: configuration,
            settings: settings,
            time: time,
            log: log,
            metadata: MetadataRefresher(
                settings: settings,
                cachePath: ReloadableSettings.metadataCache(configuration),
                time: time,
                metrics: self.metrics,
                log: log
            ),
            apple: apple,
            identityProviders: identityProviders,
            webhooks: webhooks,
            mailWorker: mailWorker,
            tokens: tokens
        )
        tokens.updateKeys()
        if let metrics { work.collectMetrics(into: metrics, store: store, metrics: self.metrics) }
    }

    /// The relying party in force (its origins follow a reload of the associated domains).
    var relyingParty: RelyingParty {
        settings.relyingParty
    }

    /// Answers one request: dispatches it by the route table, then gives the answer its `X-Request-Id` (the request's
    /// own when valid, else a new one) and writes its request line: `error` for a server fault (with its detail),
    /// `info` for a refusal, `debug` for a success and for what a flood is made of (`not_found`, `method_not_allowed`,
    /// `rate_limited`), each naming the route by its pattern, never by the path.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let method = request.method == "HEAD" ? "GET" : request.method
        return handle(request, method: method, dispatch: Self.dispatch(method, request.path))
    }

    /// The answer when `request` is answered from memory, on the event-loop thread: a route flagged
    /// `.answersFromMemory` (or a request its `answersFromMemoryWhen` accepts), a preflight or another method's `405`,
    /// and what the table does not route (the well-known files, which are built at start-up, and the static files of
    /// `www`). Nil for everything else, which goes to the
    /// worker pool.
    public func answerOnLoop(_ request: HTTPRequest) -> HTTPResponse? {
        let method = request.method == "HEAD" ? "GET" : request.method
        let dispatch = Self.dispatch(method, request.path)
        if case .route(let route, _) = dispatch, !route.answersFromMemory(request) { return nil }
        return handle(request, method: method, dispatch: dispatch, isOnLoop: true)
    }

    /// `isOnLoop`: answered on the event loop's thread, which must never wait on the store (`answerOnLoop`).
    private func handle(_ request: HTTPRequest, method: String, dispatch: Dispatch, isOnLoop: Bool = false) -> HTTPResponse {
        let started = ContinuousClock.now
        let route = Self.label(dispatch, path: request.path)
        var response: HTTPResponse
        var code: String?
        var detail: String?
        do {
            response = try respond(to: request, method: method, dispatch: dispatch, isOnLoop: isOnLoop)
            response.headers.add("X-Content-Type-Options", "nosniff")
        } catch {
            code = error.step ?? error.code.rawValue
            detail = error.status >= 500 ? error.detail : nil
            response = error.response
            if error.code == .storageUnavailable { metrics?.storeErrors.increment() }
        }
        // Every answer of a route, errors included, carries the CORS headers (a preflight has its own).
        if request.method != "OPTIONS", dispatch.isRouted {
            for (name, value) in cors.headers(for: request) { response.headers.add(name, value) }
        }
        let requestID = requestIDs.id(offered: request.headers["x-request-id"])
        response.headers.add("X-Request-Id", requestID)
        if let metrics {
            metrics.observe(method: method, route: route, status: response.status, code: code, seconds: Self.seconds(since: started))
        }
        let level: LogLevel =
            switch response.status {
            case 500...: .error
            case 404, 405, 429, ..<400: .debug
            default: .info
            }
        if log.isEnabled(level) {
            log.write(
                LogRecord(
                    level: level,
                    event: "request",
                    message: "\(method) \(route)\(code.map { ": \($0)" } ?? "")\(detail.map { " (\($0))" } ?? "")",
                    requestID: requestID,
                    route: route,
                    status: response.status,
                    durationMilliseconds: Self.seconds(since: started) * 1000,
                    code: code
                )
            )
        }
        return response
    }

    /// Dispatches by the route table (`RelyingPartyServer+Routes.swift`), applying the route's flags.
    private func respond(to request: HTTPRequest, method: String, dispatch: Dispatch, isOnLoop: Bool) throws(ServerError) -> HTTPResponse {
        switch dispatch {
        case .route(let route, let parameters):
            // On the event loop the node's own address limit decides: the shared one may write to the database.
            if route.flags.contains(.rateLimitedPerAddress) {
                try limits.take(.address, key: limits.clientAddress(request), locally: isOnLoop)
            }
            // Stale credentials are refused here, for every route at once: only a request without any may act signed out;
            // an access token only where the route allows one (`403 insufficient_scope` elsewhere).
            let session =
                route.flags.contains(.sessionIgnored)
                ? nil : try sessions.resolve(request, allowsAccessToken: route.flags.contains(.allowsAccessToken))
            if let method = session?.session.method, method.isRestricted, !route.flags.contains(.recoverySessionAllowed) {
                throw ServerError(method == .recoveryCode ? .recoverySessionRestricted : .passwordSessionRestricted)
            }
            // A write may have appended events or mail, refused requests too (a clone warning, suspected password
            // stuffing): their deliveries are due now, not at an idle worker's next poll.
            defer { if route.method != "GET" || route.flags.contains(.writesOnGet) { work.wake() } }
            var response = try route.handler(self, request, RouteContext(parameters: parameters, session: session, isOnLoop: isOnLoop))
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
            if method == "GET", let response = settings.withLock({ $0.wellKnown }).response(to: request) { return response }
            if method == "GET", var response = staticFiles?.response(for: request.path) {
                // A module script is fetched in CORS mode: an allowed origin's page may import `/passkeyd.js` from here.
                for (name, value) in cors.headers(for: request) { response.headers.add(name, value) }
                return response
            }
            throw ServerError(.notFound)
        }
    }

    /// How many keys each limiter holds (tests check the capacity).
    package var rateLimiterSizes: (addresses: Int, failures: Int, challenges: Int) {
        (limits.address.count, limits.account.count, limits.challenges.count)
    }

    /// `GET /metrics` as the admin listener answers it (`OperationsController.metrics`).
    public func metricsResponse() -> HTTPResponse {
        controllers.operations.metricsResponse()
    }

    /// Seconds on the monotonic clock since `start`.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
