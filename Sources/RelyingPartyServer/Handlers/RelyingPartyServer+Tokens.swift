import CryptoCore
import Foundation
import HTTPServer
import Storage

extension RelyingPartyServer {
    struct AccessTokenResponse: Encodable {
        let accessToken: String
        let accessTokenExpiresAt: Date
        let tokenType = "Bearer"
    }

    /// An access token for a session of `user` (its `username` and, when the account has one, `email`).
    func mintAccessToken(user: UserRecord, session: SessionRecord) throws(ServerError) -> (token: String, expiresAt: Date) {
        try tokens.mint(for: AccessTokenSubject(user: user, session: session))
    }

    /// `POST /session/token`: a fresh access token for the request's session (bearer session token, or the cookie with
    /// an `Origin` of the site's), as the route table resolved it: a session that is gone (logged out, deleted, merged
    /// away, revoked) is `401 not_signed_in` there. An access token cannot mint another (the route does not allow one),
    /// so a leaked access token dies with its lifetime.
    func sessionToken(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try signedInUser(request, context, writing: true)
        let minted = try mintAccessToken(user: user, session: signedIn.session)
        return JSONBody.ok(AccessTokenResponse(accessToken: minted.token, accessTokenExpiresAt: minted.expiresAt))
    }

    struct JSONWebKeySetDocument: Encodable {
        let keys: [PublicKeyJWK]
    }

    /// `GET /.well-known/jwks.json`: the published signing keys (RFC 7517 §5), cacheable for less than the
    /// pre-publication window of a new key.
    func jwks(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        var response = JSONBody.ok(JSONWebKeySetDocument(keys: try tokens.jwks()))
        response.headers.add("Cache-Control", "public, max-age=\(tokens.jwksMaxAge)")
        return response
    }

    struct DiscoveryDocument: Encodable {
        let issuer: String
        let jwks_uri: String
        let introspection_endpoint: String
    }

    /// `GET /.well-known/openid-configuration`: what JWT middleware reads (`issuer`, `jwks_uri`), and the
    /// introspection endpoint (RFC 8414 §2). The OpenID provider completes it.
    func openIDConfiguration(_ request: HTTPRequest) -> HTTPResponse {
        var response = JSONBody.ok(
            DiscoveryDocument(
                issuer: tokens.issuer,
                jwks_uri: tokens.issuer + "/.well-known/jwks.json",
                introspection_endpoint: tokens.issuer + "/introspect"
            )
        )
        response.headers.add("Cache-Control", "public, max-age=\(tokens.jwksMaxAge)")
        return response
    }

    /// Starts the signing-key worker: every `SigningKeyRing.refreshInterval` it runs the rotation schedule and loads
    /// the keys (other nodes' too).
    public func startKeyWorker() {
        tokens.worker.start()
    }

    /// Stops the signing-key worker and waits for its current round.
    public func stopKeyWorker() {
        tokens.worker.stop()
    }

    /// Runs one round of the signing-key worker on the calling thread (tests drive the schedule this way).
    @discardableResult
    package func processDueKeyWork() -> Bool {
        tokens.updateKeys()
    }
}
