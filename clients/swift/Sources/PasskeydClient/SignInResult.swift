import Foundation

/// Every sign-in answer: registration and authentication verify, `POST /auth/apple`, `POST /auth/password`,
/// `POST /me/merge`. The client
/// has already kept `token` in its token store when there is one.
public struct SignInResult: Codable, Sendable, Equatable {
    /// The passkey ceremonies' `true`.
    public let verified: Bool?
    /// The passkey that signed in (passkey ceremonies).
    public let credentialId: String?
    public let user: User
    /// The session's bearer token; absent when no session was started (a merge into the signed-in account).
    public let token: String?
    public let expiresAt: Date?
    /// An access token (a JWT) for the app's own API, for the session this answer started or continued; absent for a
    /// recovery code's restricted session. `PasskeydClient.accessToken()` mints a fresh one.
    public let accessToken: String?
    public let accessTokenExpiresAt: Date?
    /// Sign in with Apple: whether this sign-in created the account.
    public let isNewAccount: Bool?
    /// Sign in with Apple: Apple's `sub`.
    public let appleUserID: String?
    /// Sign in with Apple without a session: `"matching_email"` when another account holds the same verified email.
    public let linkSuggestion: String?
    /// Merge: the user handle of the account that went away.
    public let previousUserId: String?
    /// A restricted session (a recovery code's, or a password sign-in's under `passwords.session: "upgradeOnly"`): it
    /// may only register a passkey, read the account and sign out.
    public let restricted: Bool?
    /// A registration that was an automatic passkey upgrade (a conditional request after a password sign-in).
    public let upgrade: Bool?
}
