import Foundation

/// An identity at an OpenID provider (Google, Microsoft Entra, any OpenID Connect issuer) linked to an account: keyed
/// by the issuer and the subject the provider gives the person (`iss`, `sub`), never by the provider's name in the
/// configuration or by email.
public struct FederatedIdentityRecord: Sendable, Equatable {
    /// The longest issuer kept (the configured issuer, or a multi-tenant token's `iss`).
    public static let maximumIssuerBytes = 512
    /// The longest subject kept: OpenID Connect Core §2 caps `sub` at 255 ASCII characters.
    public static let maximumSubjectBytes = 255
    /// The longest provider name kept (the configuration's names are at most 32 bytes).
    public static let maximumProviderBytes = 32
    /// The longest email address kept (RFC 5321 §4.5.3.1: 64 + 1 + 255).
    public static let maximumEmailBytes = 320

    /// The token's `iss`.
    public var issuer: String
    /// The token's `sub`: unique with `issuer` across all accounts.
    public var subject: String
    /// The account the identity signs in to.
    public var userID: [UInt8]
    /// The configuration's name of the provider it was linked through (`google`, `corp` …), for display only.
    public var provider: String
    /// The address from the last ID token; nil when the provider sent none.
    public var email: String?
    /// The provider's `email_verified` for `email`.
    public var emailVerified: Bool
    /// When the identity was linked.
    public var createdAt: Date
    /// When the person last signed in with it; nil before the first sign-in recorded.
    public var lastSignInAt: Date?

    public init(
        issuer: String,
        subject: String,
        userID: [UInt8],
        provider: String,
        email: String?,
        emailVerified: Bool,
        createdAt: Date,
        lastSignInAt: Date? = nil
    ) {
        self.issuer = issuer
        self.subject = subject
        self.userID = userID
        self.provider = provider
        self.email = email
        self.emailVerified = emailVerified
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
    }

    /// Refuses a record no store keeps (empty keys, fields past their bounds). For drivers to check before they write.
    public func validate() throws(StorageError) {
        guard !issuer.isEmpty, issuer.utf8.count <= Self.maximumIssuerBytes, !subject.isEmpty, subject.utf8.count <= Self.maximumSubjectBytes,
            !provider.isEmpty, provider.utf8.count <= Self.maximumProviderBytes, (email?.utf8.count ?? 0) <= Self.maximumEmailBytes
        else {
            throw StorageError(.invalidRecord, "a federated identity's fields are empty or past their bounds")
        }
    }
}
