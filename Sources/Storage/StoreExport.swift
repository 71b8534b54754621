import Foundation

/// Every durable record of a store, for moving a deployment from one driver to another (`passkeyd migrate`).
/// Issued challenges are left out: they live minutes, and a migration runs with passkeyd stopped.
public struct StoreExport: Sendable, Equatable {
    public var users: [UserRecord] = []
    public var credentials: [CredentialRecord] = []
    public var sessions: [SessionRecord] = []
    public var appleIdentities: [AppleIdentityRecord] = []
    /// The Apple refresh tokens, ordered by subject, then client ID.
    public var appleRefreshTokens: [AppleRefreshTokenRecord] = []
    /// The identities at OpenID providers, ordered by issuer, then subject.
    public var federatedIdentities: [FederatedIdentityRecord] = []
    /// The refused link suggestions.
    public var linkDeclines: [LinkDecline] = []
    /// The newest applied Apple notification per `sub`, ordered by subject.
    public var appleNotificationWatermarks: [AppleNotificationWatermark] = []
    /// The unused enrollment links, ordered by token hash.
    public var enrollmentTokens: [EnrollmentTokenRecord] = []
    /// The unused recovery codes, ordered by user, then hash.
    public var recoveryCodes: [RecoveryCodeRecord] = []
    /// The imported password hashes, ordered by user.
    public var passwordHashes: [PasswordHashRecord] = []
    /// The Apple nonce replay guard: the SHA-256 of each remembered raw nonce and when it may be forgotten.
    public var appleNonces: [[UInt8]: Date] = [:]
    /// Queued Apple revocations, with their IDs.
    public var appleRevocations: [AppleRevocationRecord] = []
    /// The event outbox, with the events' IDs.
    public var events: [EventRecord] = []
    /// The webhook endpoints that get deliveries.
    public var webhookSubscriptions: [WebhookSubscription] = []
    /// The webhook deliveries, with their IDs (leases are not carried over).
    public var webhookDeliveries: [WebhookDeliveryRecord] = []
    /// The access-token signing keys, sealed under the server secret (which `sharedSecrets` carries along).
    public var signingKeys: [SigningKeyRecord] = []
    /// The OpenID provider's grants and their refresh-token families (authorization codes live 60 s and are not copied).
    public var oauthGrants: [OAuthGrantRecord] = []
    public var oauthRefreshTokens: [RefreshTokenRecord] = []
    /// The deployment's shared secrets by name (see `SharedSecretStore`). A SQLite node keeps them as files in its
    /// data folder, not in the store: the caller fills them in.
    public var sharedSecrets: [String: [UInt8]] = [:]

    public init() {}
}
