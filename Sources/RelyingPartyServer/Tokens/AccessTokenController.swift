import AccessTokens
import ConfigurationFile
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Storage

/// Access tokens for the app's own API: a fresh one for a session (`POST /session/token`), the published keys
/// (`/.well-known/jwks.json`), the discovery document, and introspection for the app's backends (`POST /introspect`).
struct AccessTokenController: Sendable {
    let store: any PasskeyStore
    let time: any TimeSource
    let tokens: AccessTokenService
    let accounts: SignedInAccounts
    /// `backends`: who may introspect.
    let backends: [BackendKey]
    /// The `client_id` of an introspected access token.
    let relyingPartyID: String

    struct AccessTokenResponse: Encodable {
        let accessToken: String
        let accessTokenExpiresAt: Date
        let tokenType = "Bearer"
    }

    /// `POST /session/token`: a fresh access token for the request's session (bearer session token, or the cookie with
    /// an `Origin` of the site's), as the route table resolved it: a session that is gone (logged out, deleted, merged
    /// away, revoked) is `401 not_signed_in` there. An access token cannot mint another (the route does not allow one),
    /// so a leaked access token dies with its lifetime.
    func sessionToken(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try accounts.user(request, context, writing: true)
        let minted = try tokens.mint(for: AccessTokenSubject(user: user, session: signedIn.session))
        return JSONBody.ok(AccessTokenResponse(accessToken: minted.token, accessTokenExpiresAt: minted.expiresAt))
    }

    struct JSONWebKeySetDocument: Encodable {
        let keys: [PublicKeyJWK]
    }

    /// `GET /.well-known/jwks.json`: the published signing keys (RFC 7517 §5), cacheable for less than the
    /// pre-publication window of a new key.
    func jwks(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
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
            "email_verified", "external_id",
        ]
        let authorization_response_iss_parameter_supported = true
        let request_parameter_supported = false
        let request_uri_parameter_supported = false
    }

    /// `GET /.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3, RFC 8414 §2): what JWT middleware
    /// reads (`issuer`, `jwks_uri`), the introspection endpoint, and the OpenID provider's endpoints and capabilities.
    func discovery(_ request: HTTPRequest, _ context: RouteContext) -> HTTPResponse {
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

    /// An introspection answer (RFC 7662 §2.2): `{"active": false}` alone, or the token's facts.
    struct IntrospectionResponse: Encodable {
        let active: Bool
        var sub: String?
        var exp: Int64?
        var iat: Int64?
        var sid: String?
        var username: String?
        /// The app's own id of the account, when it has one.
        var external_id: String?
        /// RFC 7662 §2.2 (RFC 6749 §7.1): both kinds are bearer tokens.
        var token_type: String?
        /// Which kind: `session` (an opaque session token) or `access` (a JWT access token).
        var token_use: String?
        var iss: String?
        var aud: [String]?
        var client_id: String?

        static let inactive = IntrospectionResponse(active: false)
    }

    struct IntrospectionRequest: Decodable {
        let token: String
    }

    /// `POST /introspect` (RFC 7662): for the app's backends (`Authorization: Bearer <backend key>`, one of
    /// `backends`), whether a session token or access token is live now. An access token is active only while its
    /// session is. Unknown tokens get `{"active": false}`, every kind of them after the same work: one SHA-256, one
    /// lookup by token hash, one signature verification, one lookup by session ID.
    func introspect(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        // RFC 7662 §2.1: the protected resource authenticates; the key is compared by its SHA-256 in constant time.
        guard let key = SessionService.bearer(in: request), BackendKey.matching(key, in: backends) != nil else {
            var error = ServerError(.invalidBackendKey)
            error.headers = [("WWW-Authenticate", #"Bearer realm="passkeyd introspection""#)]
            throw error
        }
        let token = try Self.introspectedToken(request)
        let now = time.now
        // A session token: found by its hash (the lookup is made for every token, as for the access token's below).
        let session = try storage { try store.session(tokenHash: SessionService.hash(token), now: now) }
        let accessToken = try tokens.session(of: AccessTokenVerifier.looksLikeJWT(token) ? token : Self.notAToken, logging: false)
        var answer = IntrospectionResponse.inactive
        // A restricted session (a recovery code's, a password's under `upgradeOnly`) speaks for nobody to a backend.
        if let session, !session.method.isRestricted, !AccessTokenVerifier.looksLikeJWT(token),
            let user = try storage({ try store.user(id: session.userID) })
        {
            answer = IntrospectionResponse(active: true)
            answer.sub = tokens.settings.subject.subject(userID: user.id, externalID: user.externalID)
            answer.external_id = user.externalID
            answer.exp = Int64(session.expiresAt.timeIntervalSince1970.rounded(.down))
            answer.iat = Int64(session.createdAt.timeIntervalSince1970.rounded(.down))
            answer.sid = Base64URL.encode(session.id)
            answer.username = user.name
            answer.token_use = "session"
        } else if let (session, claims) = accessToken, !session.method.isRestricted {
            answer = IntrospectionResponse(active: true)
            answer.sub = claims.sub
            answer.exp = claims.exp
            answer.iat = claims.iat
            answer.sid = Base64URL.encode(session.id)
            answer.username = claims.username
            answer.external_id = claims.external_id
            answer.token_use = "access"
            answer.iss = claims.iss
            answer.aud = claims.aud
            answer.client_id = relyingPartyID
        }
        if answer.active { answer.token_type = "Bearer" }
        return JSONBody.ok(answer)
    }

    /// What an opaque session token is checked as when it is an access token: well formed, and no token of anyone's.
    static let notAToken = "e30.e30.AAAA"

    /// The `token` of a form-encoded body (RFC 7662 §2.1) or of a JSON one.
    static func introspectedToken(_ request: HTTPRequest) throws(ServerError) -> String {
        let contentType = request.headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        let token: String?
        switch contentType {
        case "application/x-www-form-urlencoded":
            // The form's pairs (name=value joined by "&", a space written "+"), percent-decoded by Foundation; an
            // invalid encoding decodes to nothing.
            let pairs = String(decoding: request.body, as: UTF8.self).split(separator: "&").map { $0.split(separator: "=", maxSplits: 1) }
            token = pairs.first { $0.first.map(String.init) == "token" && $0.count == 2 }
                .flatMap { String($0[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
        case "application/json":
            token = try JSONBody.decode(IntrospectionRequest.self, from: request).token
        default:
            throw ServerError(.unsupportedMediaType)
        }
        guard let token, !token.isEmpty else { throw ServerError(.invalidRequest, member: "token") }
        return String(token.prefix(AccessTokenVerifier.maximumLength))
    }
}
