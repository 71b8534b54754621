import HTTPEdge
import HTTPServer

/// The web (redirect and callback) sign-in of one identity provider, which `WebSignInController` runs: Sign in with
/// Apple (`AppleWebFlow`) and every OpenID provider (`OpenIDWebFlow`). The controller keeps what every flow shares (the
/// return and cancel paths, the single-use `state` with its nonce and PKCE verifier, the binding cookie, the pages);
/// the flow keeps what is its provider's: the authorization request, and reading the provider's answer into a
/// verified identity and a sign-in.
protocol WebSignInFlow: Sendable {
    /// The provider's name, in its paths (`/auth/{name}/callback`) and in the flow's state.
    var name: String { get }
    /// How the flow is carried.
    var style: WebSignInStyle { get }

    /// The authorization request of a new flow; a provider that cannot start one now throws (an error page).
    func authorization() throws(ServerError) -> WebSignInAuthorization

    /// Completes a flow whose `state` is valid from the provider's answer `fields`: verifies the identity (with the
    /// state's nonce, for the state's client ID) and signs it in. `redirectURI` is the flow's callback (a code exchange
    /// names it again). A refusal throws.
    func complete(
        _ fields: FormFields,
        state: WebSignInState,
        redirectURI: String,
        request: HTTPRequest
    ) throws(ServerError) -> WebSignInOutcome
}
