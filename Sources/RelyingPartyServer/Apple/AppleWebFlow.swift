import AppleSignIn
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import JSON
import Storage

/// Sign in with Apple's web flow (`WebSignInFlow`): Apple is asked for `code id_token` by `form_post` with the first
/// Services ID of the `apple` block, and posts its answer (the identity token, the code, and on a first authorization
/// the person's name as `user` JSON) from its own site.
struct AppleWebFlow: WebSignInFlow {
    /// Apple's name in its paths (`/auth/apple/start`, `/auth/apple/callback`).
    static let providerName = "apple"
    /// `SameSite=None`: Apple posts its answer from its own site. A refusal once the state is valid is an error page.
    static let style = WebSignInStyle(
        stateKind: .appleWebState,
        stateInvalid: .appleStateInvalid,
        cookieName: "__Host-passkeyd_apple_state",
        sameSite: "None",
        errorMember: "passkeyd_apple_error",
        answerIsPosted: true,
        usesPKCE: false,
        refusalIsErrorPage: true
    )

    let resolver: AppleAccountResolver
    let time: any TimeSource

    var name: String { Self.providerName }
    var style: WebSignInStyle { Self.style }

    /// Apple's authorization endpoint with the first Services ID, `response_type=code id_token`,
    /// `response_mode=form_post` and the `name email` scope; `503 apple_not_configured` without an `apple` block or a
    /// Services ID.
    func authorization() throws(ServerError) -> WebSignInAuthorization {
        let apple = try resolver.configuredApple()
        guard let servicesID = apple.configuration.servicesIDs.first else {
            throw ServerError(.appleNotConfigured, detail: "the apple block lists no servicesIDs")
        }
        return WebSignInAuthorization(
            endpoint: apple.configuration.authorizeURL.absoluteString,
            clientID: servicesID,
            parameters: [("client_id", servicesID), ("response_type", "code id_token"), ("response_mode", "form_post"), ("scope", "name email")]
        )
    }

    /// Verifies the posted identity token with the flow's nonce and Services ID, signs in the identity's account or
    /// creates one (as `POST /auth/apple` does), and queues the exchange of the code for the refresh token. Apple's
    /// `error` (the person cancelled) is `apple_sign_in_cancelled`.
    func complete(
        _ fields: FormFields,
        state: WebSignInState,
        redirectURI: String,
        request: HTTPRequest
    ) throws(ServerError) -> WebSignInOutcome {
        let provider = try resolver.configuredProvider()
        let apple = provider.integration
        if fields["error"] != nil { return .cancelled(.appleSignInCancelled) }
        guard let identityToken = fields["id_token"] else { throw ServerError(.invalidRequest, member: "id_token") }
        // OpenID Connect Core §3.2.2.11: the nonce is the one this flow sent (its SHA-256, as Apple echoes it).
        let identity = try provider.verify(identityToken, rawNonce: state.rawNonce)
        let token = identity.claims
        // §3.1.3.7 step 3: the token is for the Services ID this flow asked for, not for an app of the same team.
        guard token.audiences.contains(state.clientID) else {
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
        guard case .signedIn(_, _, _, let issued) = try resolver.signIn(sign, request: request) else {
            throw ServerError(.invalidIdentityToken, detail: "the nonce or the identity token was already used")
        }
        // The code gives the refresh token that is revoked when the account goes (Apple's token endpoint wants the
        // redirect URI the authorization named).
        if let code = fields["code"], !code.isEmpty {
            apple.enqueueCodeExchange(code: code, subject: token.subject, clientID: state.clientID, redirectURI: redirectURI)
        }
        return .signedIn(issued)
    }

    /// The name of the `user` member Apple posts on a first authorization (`{"name": {"firstName", "lastName"}, …}`) as
    /// the name components `AppleAccountResolver.displayName` reads; nil without one.
    static func appleWebName(_ user: String?) -> JSONValue? {
        guard let user, case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(user.utf8)),
            case .object(let name)? = object["name"]
        else { return nil }
        return .object(["givenName": name["firstName"] ?? .null, "familyName": name["lastName"] ?? .null])
    }
}
