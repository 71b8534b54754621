import CryptoCore
import Foundation
import Storage

extension AdminExport {
    /// An identity at an OpenID provider (`identity` line): its provider name, issuer and subject, and the account.
    public struct Identity: Codable, Sendable {
        var type = "identity"
        var provider: String
        var issuer: String
        var subject: String
        var userId: String
        var email: String?
        var emailVerified: Bool
        var lastSignInAt: Date?
        var createdAt: Date

        public init(_ identity: FederatedIdentityRecord) {
            provider = identity.provider
            issuer = identity.issuer
            subject = identity.subject
            userId = Base64URL.encode(identity.userID)
            email = identity.email
            emailVerified = identity.emailVerified
            lastSignInAt = identity.lastSignInAt
            createdAt = identity.createdAt
        }

        func record(_ rules: some AccountFieldRules) throws(UserImportError) -> FederatedIdentityRecord {
            // The store's bounds, each refusal naming its member.
            guard !provider.isEmpty, provider.utf8.count <= FederatedIdentityRecord.maximumProviderBytes else {
                throw UserImportError(.invalid, member: "provider")
            }
            guard !issuer.isEmpty, issuer.utf8.count <= FederatedIdentityRecord.maximumIssuerBytes else {
                throw UserImportError(.invalid, member: "issuer")
            }
            guard !subject.isEmpty, subject.utf8.count <= FederatedIdentityRecord.maximumSubjectBytes else {
                throw UserImportError(.invalid, member: "subject")
            }
            let email = try AdminExport.email(email, rules)
            return FederatedIdentityRecord(
                issuer: issuer,
                subject: subject,
                userID: try AdminExport.bytes(userId, member: "userId", sizes: 1...64),
                provider: provider,
                email: email?.isEmpty == true ? nil : email,
                emailVerified: emailVerified,
                createdAt: createdAt,
                lastSignInAt: lastSignInAt
            )
        }
    }
}
