import CryptoCore
import Foundation
import HTTPEdge
import HTTPFields
import HTTPServer
import Observability
import Storage

/// The web sign-in of every identity provider (for a website, an Android app, and the hosted sign-in page): the start
/// that sends the browser to the provider, and the callback where the provider's answer comes back. What is the
/// provider's own (Apple's `form_post` answer with its ID token, an OpenID provider's code exchange with PKCE) is its
/// `WebSignInFlow`'s.
struct WebSignInController: Sendable {
    /// How long a person has at the provider before the flow's state expires.
    static let stateLifetime: TimeInterval = 600

    let flows: WebSignInFlows
    let challenges: ChallengeService
    let sessions: SessionService
    let random: any RandomSource
    let log: Logger
    /// This server's base URL: a flow's redirect URI is `<issuer>/auth/{provider}/callback`.
    let redirectBase: String

    func redirectURI(_ provider: String) -> String { redirectBase + "/auth/\(provider)/callback" }

    /// `GET /auth/apple/start` and `GET /auth/{provider}/start`, `?return=…&cancel=…`: remembers a single-use `state`
    /// with a fresh nonce and PKCE verifier (its challenge sent when the flow uses PKCE), the client ID and the paths to return to (paths
    /// on this server only, `/` by default; `cancel` defaults to `return`), sets the binding cookie, and sends the
    /// browser to the provider's authorization endpoint with `<issuer>/auth/{provider}/callback` as redirect URI.
    func start(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let fields = FormFields(request.query ?? "")
        guard fields.problem == nil else { return OpenIDPages.errorPage(ServerError(.invalidRequest, member: fields.problem)) }
        guard let returnPath = ReturnPath(fields["return"] ?? "/") else {
            return OpenIDPages.errorPage(ServerError(.invalidReturnPath, member: "return"))
        }
        guard let cancelPath = ReturnPath(fields["cancel"] ?? returnPath.value) else {
            return OpenIDPages.errorPage(ServerError(.invalidReturnPath, member: "cancel"))
        }
        let flow: any WebSignInFlow
        let authorization: WebSignInAuthorization
        do {
            flow = try flows.flow(for: context)
            authorization = try flow.authorization()
        } catch {
            return OpenIDPages.errorPage(error)
        }
        let style = flow.style
        let rawNonce = Base64URL.encode(random.bytes(count: 32))
        let verifier = Base64URL.encode(random.bytes(count: 32))
        let binding = Base64URL.encode(random.bytes(count: 32))
        let state = WebSignInState(
            provider: flow.name,
            rawNonce: rawNonce,
            codeVerifier: verifier,
            clientID: authorization.clientID,
            returnPath: returnPath.value,
            cancelPath: cancelPath.value,
            bindingHash: Self.bindingHash(binding)
        )
        let issued = try challenges.issueSecret(style.stateKind, userID: nil, context: JSONBody.encode(state), lifetime: Self.stateLifetime) {
            ChallengeService.codeKey($0, kind: style.stateKind)
        }
        var parameters = authorization.parameters
        let nonce = Hex.encode(DigestAlgorithm.sha256.hash(Array(rawNonce.utf8)))
        parameters += [("redirect_uri", redirectURI(flow.name)), ("state", issued.code), ("nonce", nonce)]
        if style.usesPKCE {
            // RFC 7636 §4.2: S256, the challenge is the base64url SHA-256 of the verifier.
            let challenge = Base64URL.encode(DigestAlgorithm.sha256.hash(Array(verifier.utf8)))
            parameters += [("code_challenge", challenge), ("code_challenge_method", "S256")]
        }
        guard let authorize = authorization.endpoint else {
            throw ServerError(.identityProviderNotFound, detail: "\(flow.name) has no authorization endpoint: native sign-in only")
        }
        let query = parameters.map { "\($0.0)=\(FormFields.encode($0.1))" }.joined(separator: "&")
        var response = OpenIDPages.redirect(to: authorize + (authorize.contains("?") ? "&" : "?") + query)
        response.headers.add("Set-Cookie", style.bindingCookie(binding, maxAge: Int(Self.stateLifetime)))
        return response
    }

    /// `POST /auth/apple/callback` (Apple's `form_post`) and `GET /auth/{provider}/callback?code&state&iss?` (or
    /// `error`): checks the `state` (known, unused, unexpired, this browser's by its binding cookie, and this
    /// provider's), lets the provider's flow verify the identity and sign it in, then sends the browser on to the return
    /// path with the session cookie. A state that is not valid is an error page; once it is valid, the person's
    /// cancellation sends the browser to the cancel path with the flow's error member, and a refusal is an error page
    /// (Apple) or the cancel path with the refusal's code (OpenID providers).
    func callback(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let name = flows.name(for: context)
        let style = flows.style(for: context)
        let fields = style.answerIsPosted ? FormFields(body: request.body) : FormFields(request.query ?? "")
        let state: WebSignInState
        do {
            state = try redeemState(fields, style: style, provider: name, request: request)
        } catch {
            return refusalPage(error, provider: name, style: style)
        }
        do {
            switch try flows.flow(for: context).complete(fields, state: state, redirectURI: redirectURI(name), request: request) {
            case .signedIn(let issued):
                return Self.continuePage(to: state.returnPath, cookies: [sessions.cookie(for: issued), style.clearingCookie])
            case .cancelled(let code):
                return Self.continuePage(to: Self.cancelPath(state, style: style, code: code), cookies: [style.clearingCookie])
            }
        } catch {
            if style.refusalIsErrorPage { return refusalPage(error, provider: name, style: style) }
            log("web sign-in refused (\(name)): \(error.code): \(error.detail ?? error.message)", event: "identity")
            return Self.continuePage(to: Self.cancelPath(state, style: style, code: error.code), cookies: [style.clearingCookie])
        }
    }

    /// The error page of a refused callback, which removes the binding cookie.
    private func refusalPage(_ error: ServerError, provider: String, style: WebSignInStyle) -> HTTPResponse {
        log("web sign-in refused (\(provider)): \(error.code): \(error.detail ?? error.message)", event: "identity")
        var page = OpenIDPages.errorPage(error)
        page.headers.add("Set-Cookie", style.clearingCookie)
        return page
    }

    /// The flow's state: one this server issued for this provider, unused, and this browser's.
    private func redeemState(
        _ fields: FormFields,
        style: WebSignInStyle,
        provider: String,
        request: HTTPRequest
    ) throws(ServerError) -> WebSignInState {
        if let problem = fields.problem { throw ServerError(.invalidRequest, member: problem) }
        // RFC 6749 §10.12, OpenID Connect Core §3.1.2.7: the state is one this server issued, used once.
        guard let text = fields["state"], let record = try challenges.redeemCode(text, kind: style.stateKind),
            let state = try? JSONDecoder().decode(WebSignInState.self, from: Data(record.context))
        else { throw ServerError(style.stateInvalid, member: "state", detail: "the state is missing, unknown, used or expired") }
        // RFC 9700 §4.7.1: the answer goes to the browser that started the flow (its binding cookie), never another's.
        guard let binding = Self.cookieValue(style.cookieName, in: request), ConstantTime.equals(Self.bindingHash(binding), state.bindingHash)
        else { throw ServerError(style.stateInvalid, member: "state", detail: "the binding cookie is missing or another browser's") }
        // RFC 9700 §4.4 (mix-up): a state started with one provider comes back to that provider's callback only.
        guard state.provider == provider else {
            throw ServerError(style.stateInvalid, member: "state", detail: "the state was issued for another provider")
        }
        return state
    }

    /// SHA-256 of a binding cookie's value, base64url (what the state keeps of it).
    private static func bindingHash(_ binding: String) -> String {
        Base64URL.encode(DigestAlgorithm.sha256.hash(Array(binding.utf8)))
    }

    /// The flow's cancel path with the flow's error member set to `code`.
    private static func cancelPath(_ state: WebSignInState, style: WebSignInStyle, code: ServerError.Code) -> String {
        ReturnPath(state.cancelPath)?.adding(style.errorMember, code.rawValue) ?? "/"
    }

    /// A page that sends the browser on to `path` on this server. Not a redirect: a navigation this page starts is
    /// same-site, so the `SameSite=Strict` session cookie set here goes with it (after a provider's cross-site POST, a
    /// redirect would still count as cross-site and the cookie would be withheld).
    static func continuePage(to path: String, cookies: [String]) -> HTTPResponse {
        let escaped = path.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        let text =
            "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url=\(escaped)\">"
            + "<title>Signing in…</title><link rel=\"stylesheet\" href=\"/style.css\"><main><p><a id=\"continue\" href=\"\(escaped)\">Continue</a></p></main></html>"
        var response = HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]), body: Array(text.utf8))
        for cookie in cookies { response.headers.add("Set-Cookie", cookie) }
        OpenIDPages.addPageHeaders(to: &response)
        return response
    }

    /// The value of the cookie `name`, when the request carries exactly one.
    static func cookieValue(_ name: String, in request: HTTPRequest) -> String? {
        let found = request.headers.cookies(named: name)
        return found.count == 1 && !found[0].isEmpty ? found[0] : nil
    }
}
