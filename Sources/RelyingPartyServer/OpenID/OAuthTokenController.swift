import AccessTokens
import ConfigurationFile
import CryptoCore
import Foundation
import HTTPEdge
import HTTPFields
import HTTPServer
import JSON
import Observability
import Storage

/// The OpenID provider's token endpoints: `POST /oauth/token` (the code exchange and refresh-token rotation),
/// `POST /oauth/revoke` and `/oauth/userinfo`.
struct OAuthTokenController: Sendable {
    let store: any PasskeyStore
    let time: any TimeSource
    let random: any RandomSource
    /// The access and ID tokens' minting and the access tokens' verification.
    let tokens: AccessTokenService
    /// The provider's clients (`configuration.oidc`).
    let oidc: OIDCSettings
    let log: Logger

    struct OAuthTokenResponse: Encodable {
        let access_token: String
        let token_type = "Bearer"
        let expires_in: Int
        let refresh_token: String
        let id_token: String
        let scope: String
    }

    /// What a token request's transaction found.
    private enum Exchange: Sendable {
        case issued(OAuthGrantRecord, nonce: String?, refreshToken: String)
        /// The code or refresh token is unknown, expired, another client's, or its checks failed.
        case refused(String)
        /// A used code or refresh token came back: its grant was revoked.
        case replayed(String)
    }

    /// The form body of an OAuth endpoint (RFC 6749 §3.2: `application/x-www-form-urlencoded`).
    static func oauthForm(_ request: HTTPRequest) throws(ServerError) -> FormFields {
        let contentType = request.headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard contentType == "application/x-www-form-urlencoded" else { throw ServerError(.unsupportedMediaType) }
        let fields = FormFields(body: request.body)
        if let problem = fields.problem { throw ServerError(.invalidRequest, member: problem) }
        return fields
    }

    /// The client of a token or revocation request (RFC 6749 §2.3.1, §3.2.1): a confidential client by its secret, in
    /// the `Authorization: Basic` header (`client_secret_basic`) or the body (`client_secret_post`), never both; a public
    /// client by its `client_id` alone (it has no secret, and sending one is refused). Secrets are compared in constant
    /// time; every failure is `401 invalid_client`.
    func authenticatedClient(_ request: HTTPRequest, _ fields: FormFields) throws(ServerError) -> OIDCClient {
        var id = fields["client_id"]
        var secret = fields["client_secret"]
        var basic = false
        if let authorization = request.headers["authorization"], authorization.lowercased().hasPrefix("basic ") {
            // §2.3.1: the ID and secret are form-encoded, then joined by ":" and base64-encoded.
            guard secret == nil, let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":"),
                let user = String(pair[..<colon]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
                let password = String(pair[pair.index(after: colon)...]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
                id == nil || id == user
            else {
                throw Self.invalidClient(basic: true)
            }
            (id, secret, basic) = (user, password, true)
        }
        guard let id, let client = oidc.client(id: id) else { throw Self.invalidClient(basic: basic) }
        switch client.type {
        case .public:
            guard secret == nil else { throw Self.invalidClient(basic: basic) }
        case .confidential:
            guard let secret, client.secretMatches(secret) else { throw Self.invalidClient(basic: basic) }
        }
        return client
    }

    private static func invalidClient(basic: Bool) -> ServerError {
        var error = ServerError(.invalidClient)
        // RFC 6749 §5.2: a 401 names the scheme the client should use.
        error.headers = [("WWW-Authenticate", "Basic realm=\"passkeyd\"")]
        return error
    }

    /// `POST /oauth/token` (RFC 6749 §4.1.3, §6; RFC 7636 §4.6; OpenID Connect Core §3.1.3): the authorization code
    /// (with its PKCE verifier, redirect URI and client) or a refresh token (rotated: the one presented is used up and a
    /// new one issued; a used one presented again revokes the whole family) for an access token, an ID token and the
    /// next refresh token. A code presented a second time revokes the grant its first exchange started.
    func token(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        do {
            return try answerToken(request)
        } catch {
            throw error.describedForOAuth()
        }
    }

    private func answerToken(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let fields = try Self.oauthForm(request)
        let client = try authenticatedClient(request, fields)
        let now = time.now
        let refreshToken = Base64URL.encode(random.bytes(count: 32))
        let exchange: Exchange
        switch fields["grant_type"] {
        case "authorization_code":
            guard let code = fields["code"] else { throw ServerError(.invalidRequest, member: "code") }
            guard let verifier = fields["code_verifier"] else { throw ServerError(.invalidRequest, member: "code_verifier") }
            guard let redirectURI = fields["redirect_uri"] else { throw ServerError(.invalidRequest, member: "redirect_uri") }
            exchange = try exchangeCode(code, verifier: verifier, redirectURI: redirectURI, client: client, refreshToken: refreshToken, now: now)
        case "refresh_token":
            guard let presented = fields["refresh_token"] else { throw ServerError(.invalidRequest, member: "refresh_token") }
            exchange = try rotate(presented, client: client, refreshToken: refreshToken, now: now)
        case nil:
            throw ServerError(.invalidRequest, member: "grant_type")
        default:
            throw ServerError(.unsupportedGrantType, member: "grant_type")
        }
        switch exchange {
        case .refused(let reason):
            throw ServerError(.invalidGrant, detail: reason)
        case .replayed(let reason):
            log("oauth token: \(reason); its grant was revoked (client \(client.id))")
            throw ServerError(.invalidGrant, detail: reason)
        case .issued(let grant, let nonce, let refreshToken):
            let user: UserRecord?
            do {
                user = try store.user(id: grant.userID)
            } catch {
                throw .storage(error)
            }
            guard let user else { throw ServerError(.invalidGrant, detail: "the account is gone") }
            let minted = try tokens.mintOpenIDTokens(for: OpenIDGrantSubject(user: user, grant: grant, nonce: nonce))
            var response = JSONBody.ok(
                OAuthTokenResponse(
                    access_token: minted.accessToken,
                    expires_in: max(0, Int(minted.expiresAt.timeIntervalSince(now))),
                    refresh_token: refreshToken,
                    id_token: minted.idToken,
                    scope: grant.scope
                )
            )
            // RFC 6749 §5.1: no cache keeps a token response.
            response.headers.add("Pragma", "no-cache")
            return response
        }
    }

    /// The code's exchange, in one transaction: the code is used up whatever follows, so that a verifier cannot be
    /// guessed at.
    private func exchangeCode(
        _ code: String,
        verifier: String,
        redirectURI: String,
        client: OIDCClient,
        refreshToken: String,
        now: Date
    ) throws(ServerError) -> Exchange {
        let lifetime = TimeInterval(oidc.refreshTokenLifetimeSeconds)
        do {
            return try store.transaction { transaction throws(StorageError) -> Exchange in
                guard let found = try transaction.useAuthorizationCode(hash: DigestAlgorithm.sha256.hash(Array(code.utf8)), now: now) else {
                    return .refused("unknown code")
                }
                // RFC 6749 §4.1.2: a code used twice is refused, and what it issued is revoked.
                guard found.usedAt == nil else {
                    _ = try transaction.deleteOAuthGrant(id: found.grantID)
                    return .replayed("a used authorization code came back")
                }
                // §4.1.3: the code was issued to this client, for this redirect URI, and has not expired.
                guard found.clientID == client.id else { return .refused("the code is another client's") }
                guard now < found.expiresAt else { return .refused("the code expired") }
                guard found.redirectURI == redirectURI else { return .refused("the redirect URI differs") }
                // RFC 7636 §4.6: BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) == code_challenge.
                guard AuthorizationRequest.isPKCEValue(verifier),
                    ConstantTime.equals(Base64URL.encode(DigestAlgorithm.sha256.hash(Array(verifier.utf8))), found.codeChallenge)
                else {
                    return .refused("the PKCE verifier does not match")
                }
                // A disabled account's codes went with it; one that raced the change issues nothing.
                guard try transaction.user(id: found.userID)?.disabled == false else { return .refused("the account is disabled or gone") }
                let grant = OAuthGrantRecord(
                    id: found.grantID,
                    clientID: client.id,
                    userID: found.userID,
                    sessionID: found.sessionID,
                    scope: found.scope,
                    authenticatedAt: found.authenticatedAt,
                    authenticationMethods: found.authenticationMethods,
                    createdAt: now,
                    expiresAt: now.addingTimeInterval(lifetime)
                )
                try transaction.insertOAuthGrant(grant)
                // The account keeps at most `maximumGrantsPerClient` grants with this client: the oldest go first.
                let older = try transaction.oauthGrants(userID: grant.userID, clientID: grant.clientID).filter { $0.id != grant.id }
                for revoked in older.dropLast(oidc.maximumGrantsPerClient - 1) {
                    _ = try transaction.deleteOAuthGrant(id: revoked.id)
                }
                try transaction.insertRefreshToken(
                    RefreshTokenRecord(tokenHash: DigestAlgorithm.sha256.hash(Array(refreshToken.utf8)), grantID: grant.id, createdAt: now)
                )
                return .issued(grant, nonce: found.nonce, refreshToken: refreshToken)
            }
        } catch {
            throw .storage(error)
        }
    }

    /// The refresh token's rotation, in one transaction (RFC 9700 §4.14.2: refresh token rotation with reuse detection).
    private func rotate(_ presented: String, client: OIDCClient, refreshToken: String, now: Date) throws(ServerError) -> Exchange {
        let hash = DigestAlgorithm.sha256.hash(Array(presented.utf8))
        do {
            return try store.transaction { transaction throws(StorageError) -> Exchange in
                guard let token = try transaction.refreshToken(hash: hash), let grant = try transaction.oauthGrant(id: token.grantID) else {
                    return .refused("unknown refresh token")
                }
                // RFC 6749 §6: the token was issued to this client (another client's attempt uses nothing up).
                guard grant.clientID == client.id else { return .refused("the refresh token is another client's") }
                guard now < grant.expiresAt else { return .refused("the grant expired") }
                guard try transaction.user(id: grant.userID)?.disabled == false else { return .refused("the account is disabled or gone") }
                if let usedAt = try transaction.useRefreshToken(hash: hash, now: now)?.usedAt {
                    // A retry within `oidc.refreshTokenReuseGraceSeconds` of the rotation gets a fresh pair; any
                    // later return is a reuse (RFC 9700 §4.14.2), which revokes the grant.
                    guard now.timeIntervalSince(usedAt) < TimeInterval(oidc.refreshTokenReuseGraceSeconds) else {
                        _ = try transaction.deleteOAuthGrant(id: grant.id)
                        return .replayed("a used refresh token came back")
                    }
                    let age = Int(now.timeIntervalSince(usedAt))
                    log("oauth token: a refresh token rotated \(age)s ago came back within the grace (client \(client.id))")
                }
                try transaction.insertRefreshToken(
                    RefreshTokenRecord(tokenHash: DigestAlgorithm.sha256.hash(Array(refreshToken.utf8)), grantID: grant.id, createdAt: now)
                )
                return .issued(grant, nonce: nil, refreshToken: refreshToken)
            }
        } catch {
            throw .storage(error)
        }
    }

    /// `POST /oauth/revoke` (RFC 7009 §2): a refresh token, or an access token of the provider, of the authenticated
    /// client revokes its grant (the family of refresh tokens, and the access tokens at `/oauth/userinfo`). The answer
    /// is 200 whether or not the token was known (§2.2); another client's token is left alone.
    func revokeOAuthToken(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        do {
            return try revoke(request)
        } catch {
            throw error.describedForOAuth()
        }
    }

    private func revoke(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let fields = try Self.oauthForm(request)
        let client = try authenticatedClient(request, fields)
        guard let token = fields["token"] else { throw ServerError(.invalidRequest, member: "token") }
        var grantID: [UInt8]?
        if AccessTokenVerifier.looksLikeJWT(token) {
            let verified = try tokens.openIDClaims(of: token, clientIDs: [client.id])
            grantID = verified.claims.flatMap { Base64URL.decode($0.sid) }
        }
        let refreshHash = DigestAlgorithm.sha256.hash(Array(token.utf8))
        do {
            try store.transaction { transaction throws(StorageError) in
                var id = grantID
                if id == nil { id = try transaction.refreshToken(hash: refreshHash)?.grantID }
                guard let id, let grant = try transaction.oauthGrant(id: id), grant.clientID == client.id else { return }
                _ = try transaction.deleteOAuthGrant(id: id)
            }
        } catch {
            throw .storage(error)
        }
        return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array("{}".utf8))
    }

    /// `GET /oauth/userinfo` (OpenID Connect Core §5.3): the claims of the granted scopes for a live access token of an
    /// OpenID client (its grant not revoked); `401 invalid_token` with `WWW-Authenticate` otherwise (RFC 6750 §3.1).
    func userInfo(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        var refusal = ServerError(.invalidToken)
        refusal.headers = [("WWW-Authenticate", "Bearer error=\"\(ServerError.Code.invalidToken)\"")]
        guard let token = SessionService.bearer(in: request) else {
            refusal.headers = [("WWW-Authenticate", "Bearer realm=\"passkeyd\"")]
            throw refusal
        }
        let verified = try tokens.openIDClaims(of: token, clientIDs: oidc.clients.map(\.id))
        guard let claims = verified.claims, let grantID = Base64URL.decode(claims.sid) else { throw refusal }
        let subjectRule = tokens.settings.subject
        let subject: OpenIDGrantSubject?
        do {
            subject = try store.transaction { transaction throws(StorageError) -> OpenIDGrantSubject? in
                guard let grant = try transaction.oauthGrant(id: grantID), let user = try transaction.user(id: grant.userID),
                    subjectRule.names(claims.sub, userID: user.id, externalID: { user.externalID })
                else { return nil }
                return OpenIDGrantSubject(user: user, grant: grant)
            }
        } catch {
            throw .storage(error)
        }
        guard let subject else { throw refusal }
        var body = JSONObjectWriter(capacity: 256)
        body.add("sub", subjectRule.subject(userID: subject.user.id, externalID: subject.user.externalID))
        AccessTokenMinter.addUserClaims(of: subject, to: &body)
        return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body.finished())
    }
}
