import Foundation
import Storage

/// An identity at an OpenID provider as `GET /me` and the admin API show it: the provider it was linked through, its
/// issuer and subject, and the email the provider last gave.
public struct FederatedIdentityJSON: Encodable, Sendable {
    public let provider: String
    public let issuer: String
    public let subject: String
    public let email: String?
    public let emailVerified: Bool
    public let linkedAt: Date
    public let lastSignInAt: Date?

    init(_ identity: FederatedIdentityRecord) {
        provider = identity.provider
        issuer = identity.issuer
        subject = identity.subject
        email = identity.email
        emailVerified = identity.emailVerified
        linkedAt = identity.createdAt
        lastSignInAt = identity.lastSignInAt
    }
}
