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
    /// Apple's `real_user_status` (0, 1 or 2); nil when Apple sent none.
    public var realUserStatus: Int?
    /// Apple's `transfer_sub`, kept for app transfers between teams.
    public var transferSubject: String?
    /// The refresh token from the code exchange, encrypted by the server (never stored in the clear); nil until then.
    public var encryptedRefreshToken: [UInt8]?
    /// The client ID (bundle ID or Services ID) the refresh token was issued to; needed to revoke it.
    public var refreshTokenClientID: String?
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
        realUserStatus: Int?,
        transferSubject: String?,
        encryptedRefreshToken: [UInt8]? = nil,
        refreshTokenClientID: String? = nil,
        createdAt: Date
    ) {
        self.subject = subject
        self.userID = userID
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.emailDisabled = emailDisabled
        self.realUserStatus = realUserStatus
        self.transferSubject = transferSubject
        self.encryptedRefreshToken = encryptedRefreshToken
        self.refreshTokenClientID = refreshTokenClientID
        self.createdAt = createdAt
    }
}
