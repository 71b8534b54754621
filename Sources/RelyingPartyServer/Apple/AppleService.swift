/// Input and output with Apple's Sign in with Apple endpoints, kept behind a protocol so that the server logic is
/// testable and all network access stays at the edge. Calls block the calling thread until a reply or a timeout.
public protocol AppleService: Sendable {
    /// GET the JWKS document (`jwksURL`).
    func fetchKeys() -> AppleReply
    /// POST an authorization code to `tokenURL` (grant_type authorization_code).
    func exchangeCode(_ code: String, clientID: String, clientSecret: String) -> AppleReply
    /// POST a refresh token to `revokeURL` (token_type_hint refresh_token).
    func revokeToken(_ token: String, clientID: String, clientSecret: String) -> AppleReply
    /// POST to `tokenURL` for an access token of the user migration (grant_type client_credentials, scope
    /// user.migration).
    func requestMigrationAccessToken(clientID: String, clientSecret: String) -> AppleReply
    /// POST `fields` (form-encoded) to `migrationURL` with the migration access token as bearer.
    func migrationInfo(_ fields: [(String, String)], accessToken: String) -> AppleReply
}
