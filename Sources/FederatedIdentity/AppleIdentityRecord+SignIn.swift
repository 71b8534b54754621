import AppleSignIn
import Storage

extension AppleIdentityRecord {
    /// What a sign-in with `token` records: the token's email facts when it carries an email, its `real_user_status`,
    /// the sign-in time (the token's `iat`, never earlier than one recorded), and the end of a consent-revoked mark.
    package mutating func signedIn(with token: AppleIdentityToken) {
        if let email = token.email {
            self.email = email
            emailVerified = token.emailVerified ?? false
            isPrivateEmail = token.isPrivateEmail ?? false
        }
        realUserStatus = token.realUserStatus?.rawValue ?? realUserStatus
        lastSignInAt = max(lastSignInAt ?? token.issuedAt, token.issuedAt)
        consentRevoked = false
    }
}
