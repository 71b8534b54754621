import HTTPEdge
import Storage

/// How a provider's web flow is carried (`WebSignInFlow`): where its `state` is kept, the cookie that binds it to a
/// browser, how the provider's answer comes back and how a refusal is shown.
struct WebSignInStyle: Sendable {
    /// The challenge kind the flow's `state` is kept as.
    let stateKind: CeremonyKind
    /// The code of a `state` that is missing, unknown, used, expired or another browser's.
    let stateInvalid: ServerError.Code
    /// The cookie that binds a flow to the browser that started it.
    let cookieName: String
    /// The cookie's `SameSite`: `Lax` when the provider sends the browser back with a top-level GET (which carries Lax
    /// cookies), `None` when it posts its answer from its own site (a Lax or Strict cookie is not sent on a cross-site
    /// POST).
    let sameSite: String
    /// The query member that tells the app's page the flow ended without a sign-in (its value is a `ServerError` code).
    let errorMember: String
    /// Whether the provider posts its answer as a form (`response_mode=form_post`) rather than in the callback's query.
    let answerIsPosted: Bool
    /// Whether the flow sends a PKCE challenge (RFC 7636) and keeps its verifier in the state.
    let usesPKCE: Bool
    /// Whether a refusal once the state is valid is an error page; otherwise the browser goes on to the flow's cancel
    /// path with `errorMember` set to the refusal's code.
    let refusalIsErrorPage: Bool

    /// The `Set-Cookie` value that binds a flow to this browser for `maxAge` seconds.
    func bindingCookie(_ value: String, maxAge: Int) -> String {
        "\(cookieName)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; Secure; SameSite=\(sameSite)"
    }

    /// The `Set-Cookie` value that removes the binding cookie.
    var clearingCookie: String { bindingCookie("", maxAge: 0) }
}
