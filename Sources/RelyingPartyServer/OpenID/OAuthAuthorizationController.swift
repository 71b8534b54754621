import AccessTokens
import ConfigurationFile
import CryptoCore
import Foundation
import HTTPEdge
import HTTPFields
import HTTPServer
import Storage

/// The OpenID provider's authorization endpoint: `GET /oauth/authorize` (the code flow with PKCE) and the hosted
/// sign-in page it sends a person to who is not signed in.
struct OAuthAuthorizationController: Sendable {
    /// The hosted sign-in page (`www/oauth/sign-in.html`), served at `signInPagePath` with the authorization request's
    /// query: it signs the person in (or sees that they are) and sends the browser back to `/oauth/authorize`.
    static let signInPagePath = "/oauth/sign-in"

    let store: any PasskeyStore
    let time: any TimeSource
    let random: any RandomSource
    let sessions: SessionService
    /// The same-origin check of the consent page's answer (a cookie-authenticated write).
    let accounts: SignedInAccounts
    /// The provider's clients (`configuration.oidc`).
    let oidc: OIDCSettings
    /// The `iss` of every redirect (RFC 9207): the access tokens' issuer.
    let issuer: String
    /// The `www` folder, which holds the hosted sign-in page (nil without one).
    let staticFiles: StaticFiles?

    /// `GET /oauth/authorize` (RFC 6749 §4.1.1, OpenID Connect Core §3.1.2): the authorization code flow with PKCE.
    ///
    /// An unknown `client_id` or an unregistered `redirect_uri` is an error page (never a redirect). Any other error
    /// goes to the redirect URI as an OAuth error with the `state`. A person signed in to passkeyd (the session cookie)
    /// goes straight back to the client with a code, unless `prompt=login` or `max_age` asks for a new sign-in; anyone
    /// else is sent to the hosted sign-in page, which comes back here once they are signed in. `prompt=none` without a
    /// session is `login_required` — after one same-site round trip through the page when the browser came from another
    /// site (`Sec-Fetch-Site`), since the `SameSite=Strict` cookie is not sent on such a navigation.
    func authorize(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let fields = FormFields(request.query ?? "")
        let client: OIDCClient
        let redirectURI: String
        do {
            (client, redirectURI) = try AuthorizationRequest.client(of: fields, in: oidc)
        } catch {
            return OpenIDPages.errorPage(error)
        }
        let authorization: AuthorizationRequest
        do {
            authorization = try AuthorizationRequest(fields: fields, client: client, redirectURI: redirectURI)
        } catch {
            let state = fields["state"].map { String($0.prefix(AuthorizationRequest.maximumStateLength)) }
            return OpenIDPages.redirect(to: Self.errorRedirect(error, redirectURI: redirectURI, state: state, issuer: issuer))
        }
        // The sign-in page's cancel button, and the consent page's refusal.
        if fields["passkeyd_cancel"] != nil {
            return OpenIDPages.redirect(to: authorization.redirect([("error", ServerError.Code.accessDenied.rawValue)], issuer: issuer))
        }
        let now = time.now
        let session = try sessions.cookieSession(request)
        let fresh =
            session.map { session in authorization.maximumAge.map { now.timeIntervalSince(session.authenticatedAt) <= Double($0) } ?? true } ?? false
        if let session, fresh, authorization.prompt != .login {
            // RFC 8252 §8.6, OpenID Connect Core §3.1.2.4: a public client's first grant, and any `prompt=consent`, is
            // asked of the person on the consent page; `prompt=none` cannot show it.
            if try needsConsent(authorization, userID: session.userID) {
                guard authorization.prompt != .silent else {
                    return OpenIDPages.redirect(to: authorization.redirect([("error", ServerError.Code.consentRequired.rawValue)], issuer: issuer))
                }
                return OpenIDPages.redirect(to: Self.signInPagePath + "?" + (request.query ?? "") + "&" + Self.consentMarker + "=1")
            }
            let code = try issueAuthorizationCode(authorization, session: session, now: now)
            return OpenIDPages.redirect(to: authorization.redirect([("code", code)], issuer: issuer))
        }
        if authorization.prompt == .silent {
            let crossSite = ["cross-site", "same-site"].contains(request.headers["sec-fetch-site"]?.lowercased() ?? "")
            guard crossSite, session == nil else {
                return OpenIDPages.redirect(to: authorization.redirect([("error", ServerError.Code.loginRequired.rawValue)], issuer: issuer))
            }
        }
        return OpenIDPages.redirect(to: Self.signInPagePath + "?" + (request.query ?? ""))
    }

    /// `GET /oauth/sign-in`: the hosted sign-in page, with the page headers. It reads its query (the authorization
    /// request) itself; nothing of it is written into the page.
    func signInPage(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        guard var response = staticFiles?.response(for: "/oauth/sign-in.html") else { throw ServerError(.notFound) }
        // The page's own policy replaces the static files' (two policies would both apply), and no-store their no-cache.
        response.headers = HTTPHeaders(
            response.headers.filter { !["content-security-policy", "referrer-policy", "cache-control"].contains($0.name.lowercased()) }.map {
                ($0.name, $0.value)
            }
        )
        OpenIDPages.addPageHeaders(to: &response)
        return response
    }

    /// Stores a new authorization code for the signed-in session (single use, `OIDCSettings.codeLifetimeSeconds`, only
    /// its SHA-256 kept) and returns it.
    func issueAuthorizationCode(_ authorization: AuthorizationRequest, session: SessionRecord, now: Date) throws(ServerError) -> String {
        let user: UserRecord?
        do {
            user = try store.user(id: session.userID)
        } catch {
            throw .storage(error)
        }
        guard let user else { throw ServerError(.notSignedIn) }
        let code = Base64URL.encode(random.bytes(count: 32))
        let record = AuthorizationCodeRecord(
            codeHash: DigestAlgorithm.sha256.hash(Array(code.utf8)),
            clientID: authorization.client.id,
            redirectURI: authorization.redirectURI,
            codeChallenge: authorization.codeChallenge,
            nonce: authorization.nonce,
            scope: authorization.scope,
            userID: user.id,
            sessionID: session.id,
            authenticatedAt: session.authenticatedAt,
            authenticationMethods: AccessTokenSubject(user: user, session: session).authenticationMethods.joined(separator: " "),
            grantID: random.bytes(count: OAuthGrantRecord.idLength),
            createdAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(OIDCSettings.codeLifetimeSeconds))
        )
        do {
            try store.transaction { transaction throws(StorageError) in try transaction.insertAuthorizationCode(record) }
        } catch {
            throw .storage(error)
        }
        return code
    }

    /// The redirect of an error: OAuth's code and description (RFC 6749 §4.1.2.1); a server fault is `server_error`.
    static func errorRedirect(_ error: ServerError, redirectURI: String, state: String?, issuer: String) -> String {
        let code = error.status >= 500 ? "server_error" : error.code.rawValue
        return AuthorizationRequest.redirect(to: redirectURI, [("error", code), ("error_description", error.message)], state: state, issuer: issuer)
    }
}
