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
        let authorization_endpoint: String
        let token_endpoint: String
        let userinfo_endpoint: String
        let revocation_endpoint: String
        let scopes_supported = OIDCClient.supportedScopes
        let response_types_supported = ["code"]
        let response_modes_supported = ["query"]
        let grant_types_supported = ["authorization_code", "refresh_token"]
        let subject_types_supported = ["public"]
        let id_token_signing_alg_values_supported: [String]
        let token_endpoint_auth_methods_supported = ["client_secret_basic", "client_secret_post", "none"]
        let revocation_endpoint_auth_methods_supported = ["client_secret_basic", "client_secret_post", "none"]
        let code_challenge_methods_supported = ["S256"]
        let prompt_values_supported = ["none", "login", "consent"]
        let claims_supported = [
            "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "amr", "at_hash", "azp", "sid", "preferred_username", "name", "email",
            "email_verified",
        ]
        let authorization_response_iss_parameter_supported = true
        let request_parameter_supported = false
        let request_uri_parameter_supported = false
    }

    /// `GET /.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3, RFC 8414 §2): what JWT middleware
    /// reads (`issuer`, `jwks_uri`), the introspection endpoint, and the OpenID provider's endpoints and capabilities.
    func openIDConfiguration(_ request: HTTPRequest) -> HTTPResponse {
        let issuer = tokens.issuer
        var response = JSONBody.ok(
            DiscoveryDocument(
                issuer: issuer,
                jwks_uri: issuer + "/.well-known/jwks.json",
                introspection_endpoint: issuer + "/introspect",
                authorization_endpoint: issuer + "/oauth/authorize",
                token_endpoint: issuer + "/oauth/token",
                userinfo_endpoint: issuer + "/oauth/userinfo",
                revocation_endpoint: issuer + "/oauth/revoke",
                id_token_signing_alg_values_supported: [tokens.settings.algorithm.rawValue]
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
