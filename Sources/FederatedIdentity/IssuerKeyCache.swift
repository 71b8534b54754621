import BackgroundWork
import CryptoCore
import Foundation
import HTTPEdge
import HTTPFields
import Observability
import OpenIDConnect
import OutboundHTTP

/// One OpenID provider's discovery document and keys, on the shared background schedule (`BackgroundRefresh`, as
/// Apple's keys are: cached until the JWKS's `Cache-Control: max-age`, else an hour; refreshed ahead of expiry; an
/// unknown `kid` refreshes at most once a minute). A request never waits for the provider: `keys` answers from the
/// cache at once, or fails fast with `503 identity_provider_unavailable` and starts a fetch. A fetch is the discovery
/// document, then the JWKS it names, each request with a short deadline.
package final class IssuerKeyCache: Sendable {
    /// Each request of a fetch gets this long in all.
    package static let timeoutSeconds: Double = 5

    /// The keys and the discovery document they were read through (its endpoints serve the web flow).
    private struct Published: Sendable {
        package var keys: IssuerKeySet
        package var document: DiscoveryDocument
    }

    private let provider: String
    private let refresh: BackgroundRefresh<Published>

    package init(provider: String, discoveryURL: String, issuer: IssuerIdentifier, client: HTTPClient, time: any TimeSource, log: Logger) {
        self.provider = provider
        refresh = BackgroundRefresh(time: time) { completion in
            Self.fetch(discoveryURL: discoveryURL, issuer: issuer, client: client) { published, lifetime, failure in
                if let failure { log.warning("identity provider \(provider): fetch failed: \(failure)", event: "identity") }
                completion(published, lifetime)
            }
        }
    }

    /// Unexpired keys; without them `503 identity_provider_unavailable` at once, with a fetch started in the background.
    package func keys(now: Date) throws(ServerError) -> IssuerKeySet {
        try published(now: now).keys
    }

    /// The discovery document of the unexpired keys; without it `503 identity_provider_unavailable` at once (with a
    /// fetch started, as `keys` does).
    package func discovery(now: Date) throws(ServerError) -> DiscoveryDocument {
        try published(now: now).document
    }

    /// After a token named a key the cached set lacks: see `BackgroundRefresh.refreshForUnknownKey`.
    package func refreshForUnknownKey(now: Date) -> Bool { refresh.refreshForUnknownKey(now: now) }

    /// Starts a fetch when the keys are due or missing (start-up).
    package func refreshIfDue() { refresh.refreshIfDue() }

    /// Whether keys are cached and unexpired at `now`, and how many fetches have completed (for tests).
    package func status(now: Date) -> (cached: Bool, completedFetches: Int) { refresh.status(now: now) }

    private func published(now: Date) throws(ServerError) -> Published {
        guard let published = refresh.current(now: now) else {
            throw ServerError(.identityProviderUnavailable, detail: "\(provider): no keys yet")
        }
        return published
    }

    private static func request(_ url: String, limit: Int) -> HTTPClientRequest {
        HTTPClientRequest(
            url: url,
            headers: HTTPHeaders([("Accept", "application/json")]),
            connectTimeoutSeconds: timeoutSeconds,
            deadlineSeconds: timeoutSeconds,
            maximumReplyBodySize: limit
        )
    }

    /// The discovery document, then the JWKS at its `jwks_uri` (checked by the outbound client's rule too); `done` gets
    /// both, or nil and what failed.
    private static func fetch(
        discoveryURL: String,
        issuer: IssuerIdentifier,
        client: HTTPClient,
        done: @escaping @Sendable (Published?, TimeInterval?, String?) -> Void
    ) {
        client.send(request(discoveryURL, limit: DiscoveryDocument.maximumDocumentLength)) { result in
            guard case .success(let reply) = result, reply.status == 200 else {
                return done(nil, nil, "discovery document: \(describe(result))")
            }
            let document: DiscoveryDocument
            do {
                document = try DiscoveryDocument(json: reply.body, expectedIssuer: issuer)
                try HTTPClient.validate(url: document.jwksURL.absoluteString)
            } catch let error as OpenIDConnectError {
                return done(nil, nil, "discovery document: \(error.code)")
            } catch {
                return done(nil, nil, "discovery document: jwks_uri refused by the outbound client")
            }
            client.send(request(document.jwksURL.absoluteString, limit: IssuerKeySet.maximumDocumentLength)) { result in
                guard case .success(let reply) = result, reply.status == 200 else {
                    return done(nil, nil, "keys: \(describe(result))")
                }
                do throws(OpenIDConnectError) {
                    let keys = try IssuerKeySet(json: reply.body)
                    let lifetime = HTTPClientAppleService.maximumAge(reply.headers["Cache-Control"]).map(TimeInterval.init)
                    done(Published(keys: keys, document: document), lifetime, nil)
                } catch {
                    done(nil, nil, "keys: \(error.code)")
                }
            }
        }
    }

    private static func describe(_ result: Result<HTTPClientReply, HTTPClientError>) -> String {
        switch result {
        case .success(let reply): "status \(reply.status)"
        case .failure(let error): "unreachable (\(error.code))"
        }
    }
}
