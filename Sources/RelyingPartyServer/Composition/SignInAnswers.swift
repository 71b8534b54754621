import AccessTokens
import CryptoCore
import HTTPEdge
import HTTPServer
import Storage

/// The answer of every sign-in (passkey ceremonies, Sign in with Apple, recovery, merge): the body with an access
/// token for the session, and the session cookie when a session was started.
struct SignInAnswers: Sendable {
    let sessions: SessionService
    let tokens: AccessTokenService

    /// The body with an access token for the session (`issued`'s, or `continuing` when none was started), and the
    /// session cookie when a session was started (stored already).
    func answer(
        _ answer: SignedInResponse,
        user: UserRecord,
        issued: SessionService.Issued?,
        continuing current: SessionRecord? = nil
    ) throws(ServerError) -> HTTPResponse {
        var answer = answer
        if let session = issued?.session ?? current {
            let accessToken = try tokens.mint(for: AccessTokenSubject(user: user, session: session))
            (answer.accessToken, answer.accessTokenExpiresAt) = (accessToken.token, accessToken.expiresAt)
        }
        var response = JSONBody.ok(answer)
        if let issued { response.headers.add("Set-Cookie", sessions.cookie(for: issued)) }
        return response
    }

    /// The passkey ceremonies' answer: `verified` and the passkey that signed in (`upgrade` for one an automatic
    /// upgrade made).
    func passkey(user: UserRecord, credentialID: [UInt8], issued: SessionService.Issued, upgrade: Bool = false) throws(ServerError) -> HTTPResponse {
        var body = SignedInResponse(user: user, issued: issued)
        body.verified = true
        body.credentialId = Base64URL.encode(credentialID)
        if upgrade { body.upgrade = true }
        return try answer(body, user: user, issued: issued)
    }
}
