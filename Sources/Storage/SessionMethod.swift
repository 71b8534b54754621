/// How a session was signed in. Stored as its raw value; new ways in (recovery codes, enrollment links) add cases.
public enum SessionMethod: String, Sendable, Equatable, CaseIterable {
    /// A passkey assertion or registration (`SessionRecord.credentialID` names the passkey).
    case passkey
    /// Sign in with Apple (`SessionRecord.appleSubject` names the identity).
    case apple
    /// A recovery code (`POST /auth/recovery`): a restricted session that may only register a passkey and read the
    /// account.
    case recoveryCode = "recovery_code"
    /// An ID token of a configured OpenID provider (Google, any OpenID Connect issuer: `POST /auth/{provider}`).
    case identityProvider = "oidc"
}
