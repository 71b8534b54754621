import CryptoCore
import Foundation
import HTTPServer
import Observability
import OpenIDConnect
import Synchronization

/// One OpenID provider's discovery document and keys, fetched in the background and cached until they expire
/// (`Cache-Control: max-age` of the JWKS, else an hour), as `AppleKeyCache` does for Apple. A request never waits for
/// the provider: `keys` answers from the cache at once, or fails fast with `503 identity_provider_unavailable` and
/// starts a fetch. Keys are refreshed ahead of expiry (from three quarters of their lifetime on); a token naming an
/// unknown `kid` starts a refresh at most once a minute; after a failed fetch the next waits `failureBackoff`. One
/// fetch (the discovery document, then the JWKS it names) is in flight at a time, each request with a short deadline;
/// no lock is held across I/O.
final class IssuerKeyCache: Sendable {
    static let defaultLifetime: TimeInterval = 3600
    static let minimumLifetime: TimeInterval = 60
    static let maximumLifetime: TimeInterval = 86_400
    static let minimumRefreshInterval: TimeInterval = 60
    static let failureBackoff: TimeInterval = 5
    static let refreshAhead = 0.75
    /// Each request of a fetch gets this long in all.
    static let timeoutSeconds: Double = 5

    private struct State {
        var keys: IssuerKeySet?
        /// The discovery document the keys were read through (its endpoints serve the web flow).
        var document: DiscoveryDocument?
        var refreshAt = Date.distantPast
        var expiresAt = Date.distantPast
        var lastFetch: Date?
        var lastFailure: Date?
        var fetching = false
        /// Bumped by every completed fetch (tests wait on it).
        var generation = 0
    }

    private let state = Mutex(State())
    private let provider: String
    private let discoveryURL: String
    private let issuer: IssuerIdentifier
    private let client: HTTPClient
    private let time: any TimeSource
    private let log: Logger

    init(provider: String, discoveryURL: String, issuer: IssuerIdentifier, client: HTTPClient, time: any TimeSource, log: Logger) {
        self.provider = provider
        self.discoveryURL = discoveryURL
        self.issuer = issuer
        self.client = client
        self.time = time
        self.log = log
    }

    /// Unexpired keys; without them `503 identity_provider_unavailable` at once, with a fetch started in the background.
    func keys(now: Date) throws(ServerError) -> IssuerKeySet {
        let (keys, start) = state.withLock { state -> (IssuerKeySet?, Bool) in
            let keys = now < state.expiresAt ? state.keys : nil
            return (keys, now >= state.refreshAt && Self.mayStart(&state, now: now))
        }
        if start { fetch() }
        guard let keys else { throw ServerError(.identityProviderUnavailable, detail: "\(provider): no keys yet") }
        return keys
    }

    /// The discovery document of the unexpired keys; without it `503 identity_provider_unavailable` at once (with a
    /// fetch started, as `keys` does).
    func discovery(now: Date) throws(ServerError) -> DiscoveryDocument {
        _ = try keys(now: now)
        guard let document = state.withLock({ $0.document }) else {
            throw ServerError(.identityProviderUnavailable, detail: "\(provider): no discovery document yet")
        }
        return document
    }

    /// After a token named a key the cached set lacks: starts a refresh unless the last fetch began under a minute ago.
    func refreshForUnknownKey(now: Date) -> Bool {
        let start = state.withLock { state -> Bool in
            if let last = state.lastFetch, now.timeIntervalSince(last) < Self.minimumRefreshInterval, now >= last { return false }
            return Self.mayStart(&state, now: now)
        }
        if start { fetch() }
        return start
    }

    /// Starts a fetch when the keys are due or missing (start-up).
    func refreshIfDue() {
        let now = time.now
        let start = state.withLock { state in now >= state.refreshAt && Self.mayStart(&state, now: now) }
        if start { fetch() }
    }

    /// Whether keys are cached and unexpired at `now`, and how many fetches have completed (for tests).
    func status(now: Date) -> (cached: Bool, completedFetches: Int) {
        state.withLock { state in (state.keys != nil && now < state.expiresAt, state.generation) }
    }

    private static func mayStart(_ state: inout State, now: Date) -> Bool {
        guard !state.fetching else { return false }
        if let failure = state.lastFailure, now.timeIntervalSince(failure) < failureBackoff, now >= failure { return false }
        state.fetching = true
        state.lastFetch = now
        return true
    }

    private func request(_ url: String, limit: Int) -> HTTPClientRequest {
        HTTPClientRequest(
            url: url,
            headers: HTTPHeaders([("Accept", "application/json")]),
            connectTimeoutSeconds: Self.timeoutSeconds,
            deadlineSeconds: Self.timeoutSeconds,
            maximumReplyBodySize: limit
        )
    }

    /// The discovery document, then the JWKS at its `jwks_uri` (checked by the outbound client's rule too).
    private func fetch() {
        client.send(request(discoveryURL, limit: DiscoveryDocument.maximumDocumentLength)) { [self] result in
            guard case .success(let reply) = result, reply.status == 200 else {
                return finish(nil, document: nil, lifetime: nil, failure: "discovery document: \(Self.describe(result))")
            }
            let document: DiscoveryDocument
            do {
                document = try DiscoveryDocument(json: reply.body, expectedIssuer: issuer)
                try HTTPClient.validate(url: document.jwksURL.absoluteString)
            } catch let error as OpenIDConnectError {
                return finish(nil, document: nil, lifetime: nil, failure: "discovery document: \(error.code)")
            } catch {
                return finish(nil, document: nil, lifetime: nil, failure: "discovery document: jwks_uri refused by the outbound client")
            }
            client.send(request(document.jwksURL.absoluteString, limit: IssuerKeySet.maximumDocumentLength)) { [self] result in
                guard case .success(let reply) = result, reply.status == 200 else {
                    return finish(nil, document: nil, lifetime: nil, failure: "keys: \(Self.describe(result))")
                }
                do throws(OpenIDConnectError) {
                    let keys = try IssuerKeySet(json: reply.body)
                    let lifetime = HTTPClientAppleService.maximumAge(reply.headers["Cache-Control"]).map(TimeInterval.init)
                    finish(keys, document: document, lifetime: lifetime, failure: nil)
                } catch {
                    finish(nil, document: nil, lifetime: nil, failure: "keys: \(error.code)")
                }
            }
        }
    }

    private static func describe(_ result: Result<HTTPClientReply, HTTPServerError>) -> String {
        switch result {
        case .success(let reply): "status \(reply.status)"
        case .failure(let error): "unreachable (\(error.code))"
        }
    }

    private func finish(_ keys: IssuerKeySet?, document: DiscoveryDocument?, lifetime: TimeInterval?, failure: String?) {
        let now = time.now
        if let failure { log.warning("identity provider \(provider): fetch failed: \(failure)", event: "identity") }
        let lifetime = lifetime.map { min(Self.maximumLifetime, max(Self.minimumLifetime, $0)) } ?? Self.defaultLifetime
        state.withLock { state in
            state.fetching = false
            state.generation += 1
            guard let keys else {
                state.lastFailure = now
                return
            }
            state.keys = keys
            state.document = document
            state.expiresAt = now.addingTimeInterval(lifetime)
            state.refreshAt = now.addingTimeInterval(lifetime * Self.refreshAhead)
            state.lastFailure = nil
        }
    }
}
