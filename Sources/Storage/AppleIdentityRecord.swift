import Foundation

/// A Sign in with Apple identity linked to an account.
public struct AppleIdentityRecord: Sendable, Equatable {
    /// Apple's `sub`: the stable, team-scoped user identifier; unique across all accounts.
    public var subject: String
    /// The account the identity signs in to.
    public var userID: [UInt8]
    /// The address from the identity token (possibly a private relay address); nil when Apple sent none.
    public var email: String?
    /// Apple's `email_verified`.
    public var emailVerified: Bool
    /// Apple's `is_private_email`: `email` is a private relay address.
    public var isPrivateEmail: Bool
    /// Set by an `email-disabled` notification: Apple no longer forwards mail to the relay address.
    public var emailDisabled: Bool
    /// Set by a `consent-revoked` notification, cleared by the next sign-in with the identity: the person stopped using
    /// Sign in with Apple with the app, and the link is kept so that the same `sub` finds the same account again.
    public var consentRevoked: Bool
    /// Apple's `real_user_status` (0, 1 or 2); nil when Apple sent none.
    public var realUserStatus: Int?
    /// The transfer identifier (`transfer_sub`) of an app transfer between teams: on the sending team, the one Apple
    /// issued for the recipient team (`passkeyd apple transfer-out`); on the recipient team, the one this identity was
    /// found by when it was re-keyed to its new `sub`. Unique across identities when set.
    public var transferSubject: String?
    /// When the identity was re-keyed to the recipient team's `sub` (or arrived with a `transfer_sub`); nil while it is
    /// still the sending team's (or was never transferred).
    public var transferredAt: Date?
    /// When the person last signed in with the identity: the identity token's `iat` (Apple's clock, like the
    /// notifications' `event_time`); nil before the first sign-in recorded.
    public var lastSignInAt: Date?
    /// When the identity was linked.
    public var createdAt: Date

    /// Creates an identity record from its fields.
    public init(
        subject: String,
        userID: [UInt8],
        email: String?,
        emailVerified: Bool,
        isPrivateEmail: Bool,
        emailDisabled: Bool = false,
        consentRevoked: Bool = false,
        realUserStatus: Int?,
        transferSubject: String?,
        transferredAt: Date? = nil,
        lastSignInAt: Date? = nil,
        createdAt: Date
    ) {
        self.subject = subject
        self.userID = userID
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.emailDisabled = emailDisabled
        self.consentRevoked = consentRevoked
        self.realUserStatus = realUserStatus
        self.transferSubject = transferSubject
        self.transferredAt = transferredAt
        self.lastSignInAt = lastSignInAt
        self.createdAt = createdAt
    }
}
