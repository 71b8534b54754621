/// How a session was signed in. Stored as its raw value; new ways in (recovery codes, enrollment links) add cases.
public enum SessionMethod: String, Sendable, Equatable, CaseIterable {
    /// A passkey assertion or registration (`SessionRecord.credentialID` names the passkey).
    case passkey
    /// Sign in with Apple (`SessionRecord.appleSubject` names the identity).
    case apple
    /// A recovery code (`POST /auth/recovery`): a restricted session that may only register a passkey and read the
    /// account.
    case recoveryCode = "recovery_code"
    /// A password whose hash was imported from the app's previous system (`POST /auth/password`): a bridge to a passkey.
    case password
    /// The same under `passwords.session: upgradeOnly`: a restricted session that may only add a passkey, read the
    /// account and sign out.
    case passwordRestricted = "password_restricted"

    /// Whether the session may only add a passkey, read the account and sign out (a recovery code's, a password's
    /// under `upgradeOnly`): no access token, no cookie, no OpenID sign-in, inactive to introspection.
    public var isRestricted: Bool { self == .recoveryCode || self == .passwordRestricted }

    /// Whether a password signed the session in.
    public var isPassword: Bool { self == .password || self == .passwordRestricted }
    /// An ID token of a configured OpenID provider (Google, any OpenID Connect issuer: `POST /auth/{provider}`).
    case identityProvider = "oidc"
}
