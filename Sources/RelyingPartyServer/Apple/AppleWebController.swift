import AppleSignIn
import CryptoCore
import Foundation
import HTTPServer
import JSON
import Observability
import Storage
import WebAuthnCore

/// Sign in with Apple's web flow (for a website, an Android app, and the hosted sign-in page): the start that sends the
/// browser to Apple, and the callback where Apple posts its answer.
struct AppleWebController: Sendable {
    /// The cookie that binds an Apple web flow to the browser that started it. `SameSite=None`: Apple posts its answer
    /// from its own site, and a Lax or Strict cookie is not sent on a cross-site POST.
    static let appleStateCookieName = "__Host-passkeyd_apple_state"
    /// How long a person has at Apple before the flow's state expires.
    static let appleWebStateLifetime: TimeInterval = 600
    /// The query member that tells the page Apple's flow ended without a sign-in (its value is a `ServerError` code).
    static let appleErrorMember = "passkeyd_apple_error"

    let resolver: AppleAccountResolver
    let challenges: ChallengeService
    let sessions: SessionService
    let random: any RandomSource
    let time: any TimeSource
    let log: Logger
    /// The redirect URI of Apple's web flow (`<issuer>/auth/apple/callback`): where Apple posts its answer, named again
    /// when its code is exchanged.
    let appleWebRedirectURI: String

    /// What a web flow's `state` stands for (its challenge's context).
    struct AppleWebState: Codable {
        /// The raw nonce; Apple got its SHA-256 (hex), as the native flow gives it.
        var rawNonce: String
        var servicesID: String
        var returnPath: String
        var cancelPath: String
        /// SHA-256 of the binding cookie's value, base64url.
        var bindingHash: String
    }

    /// `GET /auth/apple/start?return=…&cancel=…`: starts Sign in with Apple's web flow (for a website, an Android app,
    /// and the hosted sign-in page). Remembers a single-use `state` with a fresh nonce and the paths to return to
    /// (relative paths on this server only, `/` by default; `cancel` defaults to `return`), sets the binding cookie,
    /// and sends the browser to Apple's authorization endpoint with the first Services ID of the `apple` block,
    /// `response_type=code id_token`, `response_mode=form_post`, and `<issuer>/auth/apple/callback` as redirect URI.
    func start(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let fields = FormFields(request.query ?? "")
        guard fields.problem == nil else { return OpenIDPages.errorPage(ServerError(.invalidRequest, member: fields.problem)) }
        guard let returnPath = ReturnPath(fields["return"] ?? "/") else {
            return OpenIDPages.errorPage(ServerError(.invalidReturnPath, member: "return"))
        }
        guard let cancelPath = ReturnPath(fields["cancel"] ?? returnPath.value) else {
            return OpenIDPages.errorPage(ServerError(.invalidReturnPath, member: "cancel"))
        }
        let apple: AppleIntegration
        do {
            apple = try resolver.configuredApple()
        } catch {
            return OpenIDPages.errorPage(error)
        }
        guard let servicesID = apple.configuration.servicesIDs.first else {
            return OpenIDPages.errorPage(ServerError(.appleNotConfigured, detail: "the apple block lists no servicesIDs"))
        }
        let rawNonce = Base64URL.encode(random.bytes(count: 32))
        let binding = Base64URL.encode(random.bytes(count: 32))
        let state = AppleWebState(
            rawNonce: rawNonce,
            servicesID: servicesID,
            returnPath: returnPath.value,
            cancelPath: cancelPath.value,
            bindingHash: Base64URL.encode(DigestAlgorithm.sha256.hash(Array(binding.utf8)))
        )
        let issued = try challenges.issueSecret(.appleWebState, userID: nil, context: JSONBody.encode(state), lifetime: Self.appleWebStateLifetime) {
            ChallengeService.codeKey($0, kind: .appleWebState)
        }
        let parameters = [
            ("client_id", servicesID), ("redirect_uri", appleWebRedirectURI), ("response_type", "code id_token"),
            ("response_mode", "form_post"), ("scope", "name email"), ("state", issued.code),
            ("nonce", Hex.encode(DigestAlgorithm.sha256.hash(Array(rawNonce.utf8)))),
        ]
        let authorize = apple.configuration.authorizeURL.absoluteString
        let query = parameters.map { "\($0.0)=\(FormFields.encode($0.1))" }.joined(separator: "&")
        var response = OpenIDPages.redirect(to: authorize + (authorize.contains("?") ? "&" : "?") + query)
        response.headers.add(
            "Set-Cookie",
            "\(Self.appleStateCookieName)=\(binding); Path=/; Max-Age=\(Int(Self.appleWebStateLifetime)); HttpOnly; Secure; SameSite=None"
        )
        return response
    }

    /// `POST /auth/apple/callback` (form-encoded, from Apple's `form_post`): checks the `state` (known, unused,
    /// unexpired, and this browser's by its binding cookie), verifies the identity token with its nonce and the flow's
    /// Services ID, signs in the identity's account or creates one (as `POST /auth/apple` does), sets the session cookie
    /// and sends the browser on to the flow's return path. Apple's `error` (the person cancelled) sends it to the cancel
    /// path with `passkeyd_apple_error=apple_sign_in_cancelled`. Every refusal is an error page.
    func callback(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        do {
            return try completeAppleWebFlow(request)
        } catch {
            log("apple web sign-in refused: \(error.code): \(error.detail ?? error.message)")
            var page = OpenIDPages.errorPage(error)
            page.headers.add("Set-Cookie", Self.clearingAppleStateCookie)
            return page
        }
    }

    static let clearingAppleStateCookie = "\(appleStateCookieName)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=None"

    private func completeAppleWebFlow(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let provider = try resolver.configuredProvider()
        let apple = provider.integration
        let fields = FormFields(body: request.body)
        if let problem = fields.problem { throw ServerError(.invalidRequest, member: problem) }
        // OpenID Connect Core §3.2.2.5, RFC 6749 §10.12: the state is one this server issued, used once.
        guard let stateText = fields["state"], let record = try challenges.redeemCode(stateText, kind: .appleWebState),
            let state = try? JSONDecoder().decode(AppleWebState.self, from: Data(record.context))
        else { throw ServerError(.appleStateInvalid, member: "state", detail: "the state is missing, unknown, used or expired") }
        // RFC 9700 §4.7.1: the answer goes to the browser that started the flow (its binding cookie), never another's.
        guard let binding = Self.cookieValue(Self.appleStateCookieName, in: request),
            ConstantTime.equals(Base64URL.encode(DigestAlgorithm.sha256.hash(Array(binding.utf8))), state.bindingHash)
        else { throw ServerError(.appleStateInvalid, member: "state", detail: "the binding cookie is missing or another browser's") }
        if fields["error"] != nil {
            let path = ReturnPath(state.cancelPath)?.adding(Self.appleErrorMember, ServerError.Code.appleSignInCancelled.rawValue) ?? "/"
            return Self.continuePage(to: path, cookies: [Self.clearingAppleStateCookie])
        }
        guard let identityToken = fields["id_token"] else { throw ServerError(.invalidRequest, member: "id_token") }
        // OpenID Connect Core §3.2.2.11: the nonce is the one this flow sent (its SHA-256, as Apple echoes it).
        let identity = try provider.verify(identityToken, rawNonce: state.rawNonce)
        let token = identity.claims
        // §3.1.3.7 step 3: the token is for the Services ID this flow asked for, not for an app of the same team.
        guard token.audiences.contains(state.servicesID) else {
            throw ServerError(.invalidIdentityToken, detail: "the identity token is not for the flow's Services ID")
        }
        let replay = try resolver.replayGuard(rawNonce: state.rawNonce, identityToken: identityToken, token: token, apple: apple)
        let sign = AppleAccountResolver.SignIn(
            provider: provider,
            identity: identity,
            displayName: resolver.displayName(Self.appleWebName(fields["user"])),
            signedInOwner: nil,
            replay: replay,
            now: time.now
        )
        let outcome = try resolver.signIn(sign, request: request)
        guard case .signedIn(_, _, _, let issued) = outcome else {
            throw ServerError(.invalidIdentityToken, detail: "the nonce or the identity token was already used")
        }
        // The code gives the refresh token that is revoked when the account goes (Apple's token endpoint wants the
        // redirect URI the authorization named).
        if let code = fields["code"], !code.isEmpty {
            apple.enqueueCodeExchange(
                code: code,
                subject: token.subject,
                clientID: state.servicesID,
                redirectURI: appleWebRedirectURI
            )
        }
        return Self.continuePage(to: state.returnPath, cookies: [sessions.cookie(for: issued), Self.clearingAppleStateCookie])
    }

    /// The name of the `user` member Apple posts on a first authorization (`{"name": {"firstName", "lastName"}, …}`) as
    /// the name components `AppleAccountResolver.displayName` reads; nil without one.
    static func appleWebName(_ user: String?) -> JSONValue? {
        guard let user, case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(user.utf8)),
            case .object(let name)? = object["name"]
        else { return nil }
        return .object(["givenName": name["firstName"] ?? .null, "familyName": name["lastName"] ?? .null])
    }

    /// A page that sends the browser on to `path` on this server. Not a redirect: a navigation this page starts is
    /// same-site, so the `SameSite=Strict` session cookie set here goes with it (after Apple's cross-site POST, a
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
