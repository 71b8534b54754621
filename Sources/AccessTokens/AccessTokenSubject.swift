import Foundation
import Storage

/// Who an access token speaks for and how they signed in: the account, its session, and what is known of the person.
package struct AccessTokenSubject: Sendable {
    package var userID: [UInt8]
    /// The app's own id of the account (`UserRecord.externalID`).
    package var externalID: String?
    package var username: String
    package var email: String?
    package var emailVerified: Bool?
    /// The session's public ID (`sid`), never its token.
    package var sessionID: [UInt8]
    /// `auth_time`.
    package var authenticatedAt: Date
    /// No token outlives its session.
    package var sessionExpiresAt: Date
    package var method: SessionMethod
    package var userVerified: Bool
    /// The account's metadata text (`UserRecord.metadata`), for `tokens.metadataClaims`.
    package var metadata: String?

    package init(
        userID: [UInt8],
        username: String,
        email: String? = nil,
        emailVerified: Bool? = nil,
        sessionID: [UInt8],
        authenticatedAt: Date,
        sessionExpiresAt: Date,
        method: SessionMethod,
        userVerified: Bool,
        externalID: String? = nil
    ) {
        self.userID = userID
        self.externalID = externalID
        self.username = username
        self.email = email
        self.emailVerified = emailVerified
        self.sessionID = sessionID
        self.authenticatedAt = authenticatedAt
        self.sessionExpiresAt = sessionExpiresAt
        self.method = method
        self.userVerified = userVerified
    }

    public init(user: UserRecord, session: SessionRecord) {
        self.init(
            userID: user.id,
            username: user.name,
            email: user.email,
            emailVerified: user.email == nil ? nil : user.emailVerified,
            sessionID: session.id,
            authenticatedAt: session.authenticatedAt,
            sessionExpiresAt: session.expiresAt,
            method: session.method,
            userVerified: session.userVerified,
            externalID: user.externalID
        )
        metadata = user.metadata
    }

    /// A passkey's `amr` lists, made once (not an array per token).
    private static let verifiedPasskey = ["pop", "user", "mfa"]
    private static let passkey = ["pop", "user"]

    /// `amr` (RFC 8176): a passkey is a proof of possession of a key (`pop`; whether it is hardware- or
    /// software-bound, `hwk` or `swk`, the server cannot know) with a user-presence test (`user`), and with user
    /// verification (PIN or biometrics on the authenticator) a second factor: `mfa`. Sign in with Apple is `apple`
    /// (not a registered value: how Apple authenticated the person is Apple's to know).
    public var authenticationMethods: [String] {
        switch method {
        case .passkey: userVerified ? Self.verifiedPasskey : Self.passkey
        case .apple: ["apple"]
        // Like Apple's: how the OpenID provider authenticated the person is the provider's to know.
        case .identityProvider: ["oidc"]
        // A recovery code is a one-time password (`otp`). No token is minted for such a session today: its answer has
        // none, and `POST /session/token` refuses it (`recovery_session_restricted`).
        case .recoveryCode: ["otp"]
        // RFC 8176 `pwd`: a password, verified against the hash imported from the app's previous system.
        case .password, .passwordRestricted: ["pwd"]
        }
    }
}
