/// Input and output with Apple's Sign in with Apple endpoints, kept behind a protocol so that the server logic is
/// testable and all network access stays at the edge. The key fetch never blocks (it serves requests); the other calls
/// block the calling thread (the Apple worker's, or a command's) until a reply or a timeout.
public protocol AppleService: Sendable {
    /// GET the JWKS document (`jwksURL`); `completion` runs once with the reply, on another thread (or at once when the
    /// request cannot be sent), and must return quickly.
    func fetchKeys(completion: @escaping @Sendable (AppleReply) -> Void)
    /// POST an authorization code to `tokenURL` (grant_type authorization_code), with the authorization's
    /// `redirect_uri` when it came from the web flow (Apple requires it then).
    func exchangeCode(_ code: String, clientID: String, clientSecret: String, redirectURI: String?) -> AppleReply
    /// POST a refresh token to `revokeURL` (token_type_hint refresh_token).
    func revokeToken(_ token: String, clientID: String, clientSecret: String) -> AppleReply
    /// POST to `tokenURL` for an access token of the user migration (grant_type client_credentials, scope
    /// user.migration).
    func requestMigrationAccessToken(clientID: String, clientSecret: String) -> AppleReply
    /// POST `fields` (form-encoded) to `migrationURL` with the migration access token as bearer.
    func migrationInfo(_ fields: [(String, String)], accessToken: String) -> AppleReply
}
