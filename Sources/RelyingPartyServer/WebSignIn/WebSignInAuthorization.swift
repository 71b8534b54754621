/// The authorization request a web flow sends the browser with (`WebSignInFlow.authorization`).
struct WebSignInAuthorization: Sendable {
    /// The provider's authorization endpoint; nil when it has none (it signs in natively only).
    let endpoint: String?
    /// The client ID the flow asks as.
    let clientID: String
    /// The request's parameters of the provider's own (`client_id`, `response_type`, `scope`, …); `redirect_uri`,
    /// `state`, `nonce` and the PKCE challenge are the controller's.
    let parameters: [(String, String)]
}
