/// What a web flow's `state` stands for (its challenge's context).
struct WebSignInState: Codable, Sendable {
    /// The provider the flow was started with: its answer is taken at that provider's callback only.
    var provider: String
    /// The raw nonce; the provider got its SHA-256 (hex), as the native flow gives it.
    var rawNonce: String
    /// RFC 7636 §4.1: the PKCE code verifier (made for every flow, sent as a challenge by those that use PKCE).
    var codeVerifier: String
    /// The client ID the flow asked as (Apple: its Services ID): the ID token must be for it.
    var clientID: String
    var returnPath: String
    var cancelPath: String
    /// SHA-256 of the binding cookie's value, base64url.
    var bindingHash: String
}
