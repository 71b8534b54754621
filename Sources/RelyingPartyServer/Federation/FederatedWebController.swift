import CryptoCore
import Foundation
import HTTPServer
import Observability
import OpenIDConnect
import Storage

/// The web flow of an identity provider: the authorization code flow with PKCE (RFC 6749 §4.1, RFC 7636, OpenID
/// Connect Core §3.1): the start that sends the browser to the provider, and the callback that exchanges the code and
/// signs in with the ID token by the rules of `POST /auth/{provider}`.
struct FederatedWebController: Sendable {
    /// The cookie that binds a flow to the browser that started it. `SameSite=Lax`: the provider sends the browser back
    /// with a top-level GET, which carries Lax cookies.
    static let stateCookieName = "__Host-passkeyd_identity_state"
    static let stateLifetime: TimeInterval = 600
    /// The query member that tells the app's page the flow ended without a sign-in (its value is a `ServerError` code).
    static let errorMember = "passkeyd_identity_error"

    let providers: IdentityProviders
    let resolver: FederatedAccountResolver
    let challenges: ChallengeService
    let sessions: SessionService
    let random: any RandomSource
    let time: any TimeSource
    let log: Logger
    /// This server's base URL: the redirect URI is `<issuer>/auth/{provider}/callback`.
    let redirectBase: String

    /// What a flow's `state` stands for (its challenge's context).
    struct WebState: Codable {
        var provider: String
        /// The raw nonce; the provider got its SHA-256 (hex), as the native flow gives it.
        var rawNonce: String
        /// RFC 7636 §4.1: the PKCE code verifier.
        var codeVerifier: String
        var returnPath: String
        var cancelPath: String
        /// SHA-256 of the binding cookie's value, base64url.
        var bindingHash: String
    }

    func redirectURI(_ provider: String) -> String { redirectBase + "/auth/\(provider)/callback" }

    /// `GET /auth/{provider}/start?return=…&cancel=…`: remembers a single-use `state` with a fresh nonce, PKCE verifier
    /// and the paths to return to (paths on this server only), sets the binding cookie, and sends the browser to the
    /// provider's authorization endpoint (`response_type=code`, `code_challenge_method=S256`).
    func start(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let fields = FormFields(request.query ?? "")
        guard fields.problem == nil else { return OpenIDPages.errorPage(ServerError(.invalidRequest, member: fields.problem)) }
        guard let returnPath = ReturnPath(fields["return"] ?? "/") else {
            return OpenIDPages.errorPage(ServerError(.invalidReturnPath, member: "return"))
        }
        guard let cancelPath = ReturnPath(fields["cancel"] ?? returnPath.value) else {
            return OpenIDPages.errorPage(ServerError(.invalidReturnPath, member: "cancel"))
        }
        let provider: OpenIDIdentityProvider
        let document: DiscoveryDocument
        do {
            provider = try providers.provider(named: context.identifier)
            document = try provider.keyCache.discovery(now: time.now)
        } catch {
            return OpenIDPages.errorPage(error)
        }
        let rawNonce = Base64URL.encode(random.bytes(count: 32))
        let verifier = Base64URL.encode(random.bytes(count: 32))
        let binding = Base64URL.encode(random.bytes(count: 32))
        let state = WebState(
            provider: provider.name,
            rawNonce: rawNonce,
            codeVerifier: verifier,
            returnPath: returnPath.value,
            cancelPath: cancelPath.value,
            bindingHash: Base64URL.encode(DigestAlgorithm.sha256.hash(Array(binding.utf8)))
        )
        let issued = try challenges.issueSecret(.identityWebState, userID: nil, context: JSONBody.encode(state), lifetime: Self.stateLifetime) {
            ChallengeService.codeKey($0, kind: .identityWebState)
        }
        let parameters = [
            ("response_type", "code"), ("client_id", provider.webClientID), ("redirect_uri", redirectURI(provider.name)),
            ("scope", provider.settings.scopes.joined(separator: " ")), ("state", issued.code),
            ("nonce", Hex.encode(DigestAlgorithm.sha256.hash(Array(rawNonce.utf8)))),
            // RFC 7636 §4.2: S256, the challenge is the base64url SHA-256 of the verifier.
            ("code_challenge", Base64URL.encode(DigestAlgorithm.sha256.hash(Array(verifier.utf8)))), ("code_challenge_method", "S256"),
        ]
        guard let authorize = document.authorizationEndpoint?.absoluteString else {
            throw ServerError(.identityProviderNotFound, detail: "\(provider.name) has no authorization endpoint: native sign-in only")
        }
        let query = parameters.map { "\($0.0)=\(FormFields.encode($0.1))" }.joined(separator: "&")
        var response = OpenIDPages.redirect(to: authorize + (authorize.contains("?") ? "&" : "?") + query)
        response.headers.add(
            "Set-Cookie",
            "\(Self.stateCookieName)=\(binding); Path=/; Max-Age=\(Int(Self.stateLifetime)); HttpOnly; Secure; SameSite=Lax"
        )
        return response
    }

    static let clearingStateCookie = "\(stateCookieName)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax"

    /// `GET /auth/{provider}/callback?code&state&iss?` (or `error`): checks the `state` (known, unused, unexpired, this
    /// browser's, and this provider's), RFC 9207's `iss` when sent, exchanges the code with the PKCE verifier, verifies
    /// the ID token with the flow's nonce and signs in (the identity's account, or a new one), then sends the browser
    /// to the return path with the session cookie. A state that is not valid is an error page; once the state is
    /// valid, a refusal sends the browser to the cancel path with `passkeyd_identity_error=<code>`.
    func callback(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let fields = FormFields(request.query ?? "")
        let state: WebState
        do {
            state = try redeemState(fields, request: request, provider: context.identifier)
        } catch {
            log("identity web sign-in refused: \(error.code): \(error.detail ?? error.message)", event: "identity")
            var page = OpenIDPages.errorPage(error)
            page.headers.add("Set-Cookie", Self.clearingStateCookie)
            return page
        }
        do {
            let issued = try complete(fields, state: state, request: request)
            return AppleWebController.continuePage(to: state.returnPath, cookies: [sessions.cookie(for: issued), Self.clearingStateCookie])
        } catch {
            log("identity web sign-in refused (\(state.provider)): \(error.code): \(error.detail ?? error.message)", event: "identity")
            let path = ReturnPath(state.cancelPath)?.adding(Self.errorMember, error.code.rawValue) ?? "/"
            return AppleWebController.continuePage(to: path, cookies: [Self.clearingStateCookie])
        }
    }

    /// The flow's state: one this server issued for this provider, unused, and this browser's.
    private func redeemState(_ fields: FormFields, request: HTTPRequest, provider: String) throws(ServerError) -> WebState {
        if let problem = fields.problem { throw ServerError(.invalidRequest, member: problem) }
        // RFC 6749 §10.12, OpenID Connect Core §3.1.2.7: the state is one this server issued, used once.
        guard let text = fields["state"], let record = try challenges.redeemCode(text, kind: .identityWebState),
            let state = try? JSONDecoder().decode(WebState.self, from: Data(record.context))
        else { throw ServerError(.identityStateInvalid, member: "state", detail: "the state is missing, unknown, used or expired") }
        // RFC 9700 §4.7.1: the answer goes to the browser that started the flow (its binding cookie), never another's.
        guard let binding = AppleWebController.cookieValue(Self.stateCookieName, in: request),
            ConstantTime.equals(Base64URL.encode(DigestAlgorithm.sha256.hash(Array(binding.utf8))), state.bindingHash)
        else { throw ServerError(.identityStateInvalid, member: "state", detail: "the binding cookie is missing or another browser's") }
        // RFC 9700 §4.4 (mix-up): a state started with one provider comes back to that provider's callback only.
        guard state.provider == provider else {
            throw ServerError(.identityStateInvalid, member: "state", detail: "the state was issued for another provider")
        }
        return state
    }

    private func complete(_ fields: FormFields, state: WebState, request: HTTPRequest) throws(ServerError) -> SessionService.Issued {
        let provider = try providers.provider(named: state.provider)
        let document = try provider.keyCache.discovery(now: time.now)
        // RFC 9207 §2.4: when the answer names its issuer, it is the issuer this flow was sent to (a mix-up otherwise).
        if let issuer = fields["iss"], issuer != document.issuer {
            throw ServerError(.identityIssuerMismatch, detail: "the authorization response's iss is not the provider's issuer")
        }
        // RFC 6749 §4.1.2.1: the provider's error (the person cancelled, or it refused).
        if fields["error"] != nil { throw ServerError(.identitySignInCancelled, detail: "the provider answered with an error") }
        guard let code = fields["code"], !code.isEmpty, code.utf8.count <= 2048 else { throw ServerError(.invalidRequest, member: "code") }
        let idToken = try provider.exchange(
            code: code,
            verifier: state.codeVerifier,
            redirectURI: redirectURI(provider.name),
            at: try tokenEndpoint(of: document, provider.name)
        )
        let identity = try provider.verify(idToken, rawNonce: state.rawNonce)
        // OpenID Connect Core §3.1.3.7 step 3: the token is for the client this flow asked as.
        guard identity.audiences.contains(provider.webClientID) else {
            throw ServerError(.invalidIdentityToken, detail: "the ID token is not for the web flow's client ID")
        }
        let replay = try resolver.replayGuard(rawNonce: state.rawNonce, idToken: idToken, identity: identity, leeway: provider.verifier.leewaySeconds)
        let sign = FederatedAccountResolver.SignIn(provider: provider, identity: identity, signedInOwner: nil, replay: replay, now: time.now)
        guard case .signedIn(_, _, _, let issued) = try resolver.signIn(sign, request: request) else {
            throw ServerError(.invalidIdentityToken, detail: "the nonce or the ID token was already used")
        }
        return issued
    }

    /// The provider's token endpoint (an issuer without one signs in natively only).
    private func tokenEndpoint(of document: DiscoveryDocument, _ name: String) throws(ServerError) -> URL {
        guard let endpoint = document.tokenEndpoint else { throw ServerError(.identityProviderNotFound, detail: "\(name) has no token endpoint") }
        return endpoint
    }
}
