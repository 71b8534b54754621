import AssociatedDomains
import Foundation
import Observability
import Synchronization

/// What the relying-party server counts as it serves, in the process's `MetricsRegistry`: the ceremony funnel, the
/// registrations by attestation format and authenticator, backup-flag changes and clone warnings, request latency per
/// route, rate-limit refusals, store errors and metadata refreshes. Every label value comes from a bounded set: route
/// patterns, stable error codes, attestation formats, configured authenticator names (at most
/// `maximumAuthenticatorNames`, then `other`).
final class ServerMetrics: Sendable {
    let registry: MetricsRegistry
    /// `passkeyd_ceremonies_total{kind, stage, outcome, code}`.
    let ceremonies: MetricFamily<Counter>
    /// `passkeyd_registrations_total{format, authenticator}`.
    let registrations: MetricFamily<Counter>
    /// `passkeyd_passkey_backup_changes_total{flag}`: `eligible` (BE) or `state` (BS) changed at a sign-in.
    let backupChanges: MetricFamily<Counter>
    let cloneWarnings: MetricFamily<Counter>
    /// `passkeyd_rate_limited_total{rule}`: `address`, `account`, `challenges`.
    let rateLimited: MetricFamily<Counter>
    /// `passkeyd_rate_limit_fallbacks_total{rule}`: requests the node's own limit decided because the shared buckets
    /// (PostgreSQL) could not be used.
    let rateLimitFallbacks: MetricFamily<Counter>
    let storeErrors: MetricFamily<Counter>
    /// `passkeyd_metadata_refreshes_total{outcome}`: `refreshed`, `unchanged`, `failed`.
    let metadataRefreshes: MetricFamily<Counter>
    /// `passkeyd_webhook_attempts_total{endpoint, outcome}`: `delivered`, `failed` (to be retried), `dead` (given up).
    let webhookAttempts: MetricFamily<Counter>
    /// `passkeyd_mail_attempts_total{kind, outcome, recipient}`: `sent`, `failed` (to be retried), `dead` (given up);
    /// `recipient` is `apple_private_relay` for Apple's relay addresses, whose refusals are counted apart, else `other`.
    let mailAttempts: MetricFamily<Counter>
    /// `passkeyd_mail_bounces_total{kind, provider, recipient}`: bounces (`hard`, `soft`) and complaints (`complaint`) a
    /// provider reported after the relay accepted the message, `recipient` as `mailAttempts`'.
    let mailBounces: MetricFamily<Counter>
    /// `passkeyd_password_stuffing_signals_total{signal}`: `accounts_per_address`, `addresses_per_account`.
    let passwordStuffingSignals: MetricFamily<Counter>
    private let requestDurations: MetricFamily<Histogram>
    /// The latency series of every route of the table and well-known file, and the ceremony stage a route is, made up
    /// front: a request's one lookup takes no lock.
    private let routeSeries: [RouteKey: (durations: Histogram, stage: (kind: String, stage: String)?)]
    private let authenticatorNames = Mutex<Set<String>>([])

    /// The most distinct authenticator names given their own series.
    static let maximumAuthenticatorNames = 100

    /// A method and a route pattern, the key of a route's series: two strings hashed in turn, not joined into a new
    /// one per request.
    struct RouteKey: Hashable {
        let method: String
        let route: String

        init(_ method: String, _ route: String) {
            self.method = method
            self.route = route
        }
    }

    /// The ceremony each route is a stage of.
    static let ceremonyStages: [RouteKey: (kind: String, stage: String)] = [
        RouteKey("POST", "/webauthn/registration/options"): ("registration", "options"),
        RouteKey("POST", "/webauthn/registration/verify"): ("registration", "verify"),
        RouteKey("POST", "/webauthn/authentication/options"): ("authentication", "options"),
        RouteKey("POST", "/webauthn/authentication/verify"): ("authentication", "verify"),
        RouteKey("POST", "/auth/apple/nonce"): ("apple", "options"),
        RouteKey("POST", "/auth/apple"): ("apple", "verify"),
        RouteKey("POST", "/auth/{provider}/nonce"): ("oidc", "options"),
        RouteKey("POST", "/auth/{provider}"): ("oidc", "verify"),
        // A rise of failed password sign-ins (`password_invalid`, `rate_limited`) is the sign of credential stuffing.
        RouteKey("POST", "/auth/password"): ("password", "verify"),
    ]

    init(registry: MetricsRegistry) {
        self.registry = registry
        ceremonies = registry.counter(
            "passkeyd_ceremonies_total",
            "Ceremony requests by kind (registration, authentication, apple, oidc, password), stage (options, verify), outcome (ok, failed) and the stable code of a failure.",
            labels: ["kind", "stage", "outcome", "code"]
        )
        registrations = registry.counter(
            "passkeyd_registrations_total",
            "Passkeys registered, by attestation format and authenticator name (from the metadata or the name list; unknown otherwise).",
            labels: ["format", "authenticator"]
        )
        backupChanges = registry.counter(
            "passkeyd_passkey_backup_changes_total",
            "Sign-ins whose backup eligibility (flag=eligible) or backup state (flag=state) differed from the stored one.",
            labels: ["flag"]
        )
        cloneWarnings = registry.counter(
            "passkeyd_clone_warnings_total",
            "Sign-ins refused because the signature counter did not increase (the passkey is flagged)."
        )
        rateLimited = registry.counter("passkeyd_rate_limited_total", "Requests refused with 429, by rate-limit rule.", labels: ["rule"])
        rateLimitFallbacks = registry.counter(
            "passkeyd_rate_limit_fallbacks_total",
            "Requests limited by the node's own limits alone because the shared limit buckets could not be used, by rule.",
            labels: ["rule"]
        )
        storeErrors = registry.counter("passkeyd_store_errors_total", "Requests answered 503 because the store failed or could not be reached.")
        metadataRefreshes = registry.counter(
            "passkeyd_metadata_refreshes_total",
            "Background fetches of the FIDO metadata BLOB, by outcome (refreshed, unchanged, failed).",
            labels: ["outcome"]
        )
        webhookAttempts = registry.counter(
            "passkeyd_webhook_attempts_total",
            "Webhook delivery attempts by configured endpoint ID and outcome (delivered; failed, to be retried; dead, given up).",
            labels: ["endpoint", "outcome"]
        )
        mailAttempts = registry.counter(
            "passkeyd_mail_attempts_total",
            "Attempts at sending mail by message kind, outcome (sent; failed, to be retried; dead, given up) and recipient (apple_private_relay or other).",
            labels: ["kind", "outcome", "recipient"]
        )
        mailBounces = registry.counter(
            "passkeyd_mail_bounces_total",
            "Bounces (hard, soft) and complaints (complaint) a provider reported after the relay accepted the message, by provider and recipient (apple_private_relay or other).",
            labels: ["kind", "provider", "recipient"]
        )
        passwordStuffingSignals = registry.counter(
            "passkeyd_password_stuffing_signals_total",
            "Signs of credential stuffing among failed password sign-ins: one address trying many accounts (accounts_per_address) or one account tried from many addresses (addresses_per_account).",
            labels: ["signal"]
        )
        requestDurations = registry.histogram(
            "passkeyd_request_duration_seconds",
            "Time from the request's arrival at the handler to its answer, by method and route pattern.",
            labels: ["method", "route"]
        )
        var series: [RouteKey: (durations: Histogram, stage: (kind: String, stage: String)?)] = [:]
        for route in RelyingPartyServer.routes {
            let key = RouteKey(route.method, route.path)
            series[key] = (requestDurations.series([route.method, route.path]), Self.ceremonyStages[key])
        }
        for path in WellKnownFiles.paths.sorted() { series[RouteKey("GET", path)] = (requestDurations.series(["GET", path]), nil) }
        series[RouteKey("GET", "(other)")] = (requestDurations.series(["GET", "(other)"]), nil)
        routeSeries = series
    }

    /// Records one answered request: its latency, and its ceremony stage when it is one.
    func observe(method: String, route: String, status: Int, code: String?, seconds: Double) {
        let known = routeSeries[RouteKey(method, route)]
        (known?.durations ?? requestDurations.series([method, route])).observe(seconds)
        guard let stage = known?.stage else { return }
        let failed = status >= 400
        ceremonies.increment([stage.kind, stage.stage, failed ? "failed" : "ok", failed ? code ?? "http_\(status)" : ""])
    }

    /// A passkey was registered.
    func registered(format: String, authenticator: String?) {
        let name = authenticator ?? "unknown"
        let label = authenticatorNames.withLock { names in
            if names.contains(name) { return name }
            guard names.count < Self.maximumAuthenticatorNames else { return "other" }
            names.insert(name)
            return name
        }
        registrations.increment([format, label])
    }

    func record(_ outcome: MetadataRefresher.Outcome) {
        switch outcome {
        case .refreshed: metadataRefreshes.increment(["refreshed"])
        case .unchanged: metadataRefreshes.increment(["unchanged"])
        case .failed: metadataRefreshes.increment(["failed"])
        case .notConfigured: break
        }
    }
}
