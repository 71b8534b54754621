import CryptoCore
import FederatedIdentity
import Foundation
import HTTPEdge
import HTTPServer
import OpenIDConnect
import Storage

/// The web flow of an OpenID provider (`WebSignInFlow`): the authorization code flow with PKCE (RFC 6749 §4.1,
/// RFC 7636, OpenID Connect Core §3.1). The provider sends the browser back with a top-level GET; the callback
/// exchanges the code and signs in with the ID token by the rules of `POST /auth/{provider}`.
struct OpenIDWebFlow: WebSignInFlow {
    /// `SameSite=Lax`: the provider's GET carries Lax cookies. A refusal once the state is valid goes to the cancel path.
    static let style = WebSignInStyle(
        stateKind: .identityWebState,
        stateInvalid: .identityStateInvalid,
        cookieName: "__Host-passkeyd_identity_state",
        sameSite: "Lax",
        errorMember: "passkeyd_identity_error",
        answerIsPosted: false,
        usesPKCE: true,
        refusalIsErrorPage: false
    )

    let provider: OpenIDIdentityProvider
    let resolver: FederatedAccountResolver
    let time: any TimeSource

    var name: String { provider.name }
    var style: WebSignInStyle { Self.style }

    /// The provider's authorization endpoint from its discovery document (`response_type=code`, its scopes, the web
    /// client ID); `503 identity_provider_unavailable` while the document cannot be had.
    func authorization() throws(ServerError) -> WebSignInAuthorization {
        let document = try provider.keyCache.discovery(now: time.now)
        return WebSignInAuthorization(
            endpoint: document.authorizationEndpoint?.absoluteString,
            clientID: provider.webClientID,
            parameters: [("response_type", "code"), ("client_id", provider.webClientID), ("scope", provider.settings.scopes.joined(separator: " "))]
        )
    }

    /// Checks RFC 9207's `iss` when sent, exchanges the code with the PKCE verifier, verifies the ID token with the
    /// flow's nonce and client ID, and signs in (the identity's account, or a new one). The provider's `error` is
    /// `identity_sign_in_cancelled`.
    func complete(
        _ fields: FormFields,
        state: WebSignInState,
        redirectURI: String,
        request: HTTPRequest
    ) throws(ServerError) -> WebSignInOutcome {
        let document = try provider.keyCache.discovery(now: time.now)
        // RFC 9207 §2.4: when the answer names its issuer, it is the issuer this flow was sent to (a mix-up otherwise).
        if let issuer = fields["iss"], issuer != document.issuer {
            throw ServerError(.identityIssuerMismatch, detail: "the authorization response's iss is not the provider's issuer")
        }
        // RFC 6749 §4.1.2.1: the provider's error (the person cancelled, or it refused).
        if fields["error"] != nil { throw ServerError(.identitySignInCancelled, detail: "the provider answered with an error") }
        guard let code = fields["code"], !code.isEmpty, code.utf8.count <= 2048 else { throw ServerError(.invalidRequest, member: "code") }
        guard let endpoint = document.tokenEndpoint else { throw ServerError(.identityProviderNotFound, detail: "\(name) has no token endpoint") }
        let idToken = try provider.exchange(code: code, verifier: state.codeVerifier, redirectURI: redirectURI, at: endpoint)
        let identity = try provider.verify(idToken, rawNonce: state.rawNonce)
        // OpenID Connect Core §3.1.3.7 step 3: the token is for the client this flow asked as.
        guard identity.audiences.contains(state.clientID) else {
            throw ServerError(.invalidIdentityToken, detail: "the ID token is not for the web flow's client ID")
        }
        let replay = try resolver.replayGuard(rawNonce: state.rawNonce, idToken: idToken, identity: identity, leeway: provider.verifier.leewaySeconds)
        let sign = FederatedAccountResolver.SignIn(provider: provider, identity: identity, signedInOwner: nil, replay: replay, now: time.now)
        guard case .signedIn(_, _, _, let issued) = try resolver.signIn(sign, request: request) else {
            throw ServerError(.invalidIdentityToken, detail: "the nonce or the ID token was already used")
        }
        return .signedIn(issued)
    }
}
