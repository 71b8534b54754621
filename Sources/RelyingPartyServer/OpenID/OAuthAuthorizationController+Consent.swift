import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Storage

/// The consent page's two calls: what the app asks for, and the person's "Allow", which issues the code. Both need
/// the session cookie of a fresh sign-in (a bearer token is an app's, and cannot consent for the person); the answer
/// is a cookie-authenticated write, so it must come from one of the relying party's origins.
extension OAuthAuthorizationController {
    /// The query member by which `/oauth/authorize` sends the browser to the hosted page for consent.
    static let consentMarker = "passkeyd_consent"

    /// Whether the person must allow the request first: `prompt=consent`, or a public client with no grant of this
    /// account yet (a grant, while it lives, is the remembered consent).
    func needsConsent(_ authorization: AuthorizationRequest, userID: [UInt8]) throws(ServerError) -> Bool {
        if authorization.asksConsent { return true }
        guard authorization.client.type == .public else { return false }
        do {
            return try store.transaction { transaction throws(StorageError) in
                try transaction.oauthGrants(userID: userID, clientID: authorization.client.id).isEmpty
            }
        } catch {
            throw .storage(error)
        }
    }

    struct ConsentRequestResponse: Encodable {
        let clientId: String
        let clientName: String
        let scopes: [String]
        let username: String
    }

    struct ConsentBody: Decodable {
        /// The authorization request's query, as the page was given it.
        let request: String
    }

    struct ConsentResponse: Encodable {
        /// Where the browser goes: the client's redirect URI with the code.
        let redirect: String
    }

    /// `GET /oauth/consent?<authorization request>`: the client's name and the scopes it asks for, and who is signed in,
    /// for the consent page to show (never taken from the page's own query).
    func consentRequest(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (authorization, session) = try consentContext(query: request.query ?? "", request: request)
        guard let user = try storage({ try store.user(id: session.userID) }) else { throw ServerError(.notSignedIn) }
        return JSONBody.ok(
            ConsentRequestResponse(
                clientId: authorization.client.id,
                clientName: authorization.client.name,
                scopes: authorization.scope.split(separator: " ").map(String.init),
                username: user.name
            )
        )
    }

    /// `POST /oauth/consent` `{"request": "<authorization request>"}`: the person allowed it; the code is issued and
    /// the page sends the browser to `redirect`. Refusing is the page's cancel link (`access_denied`).
    func consent(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        // A cookie-authenticated write: only from one of the relying party's origins (the hosted page's).
        try accounts.requireSameOrigin(request, credential: .cookie)
        let body = try JSONBody.decode(ConsentBody.self, from: request)
        let (authorization, session) = try consentContext(query: body.request, request: request)
        let code = try issueAuthorizationCode(authorization, session: session, now: time.now)
        return JSONBody.ok(ConsentResponse(redirect: authorization.redirect([("code", code)], issuer: issuer)))
    }

    /// The request checked as `/oauth/authorize` checks it, and the cookie's session, which must satisfy its `max_age`.
    private func consentContext(query: String, request: HTTPRequest) throws(ServerError) -> (AuthorizationRequest, SessionRecord) {
        guard query.utf8.count <= Self.maximumConsentQueryLength else { throw ServerError(.invalidRequest, member: "request") }
        let fields = FormFields(query)
        let (client, redirectURI) = try AuthorizationRequest.client(of: fields, in: oidc)
        let authorization = try AuthorizationRequest(fields: fields, client: client, redirectURI: redirectURI)
        guard let session = try sessions.cookieSession(request) else { throw ServerError(.notSignedIn) }
        if let maximumAge = authorization.maximumAge, time.now.timeIntervalSince(session.authenticatedAt) > Double(maximumAge) {
            throw ServerError(.loginRequired)
        }
        return (authorization, session)
    }

    /// The longest authorization query the consent calls take (its `state`, `nonce` and redirect URI are bounded).
    static let maximumConsentQueryLength = 8192
}
