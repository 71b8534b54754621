import AccountEvents
import AppleSignIn
import Foundation
import HTTPEdge
import Storage

/// Sign in with Apple as an `IdentityProvider`: identity tokens verified by the integration against Apple's cached
/// keys, and identities kept as the store's Apple identities (keyed by Apple's `sub`, found by `transfer_sub` after a
/// team transfer and then re-keyed).
package struct AppleIdentityProvider: IdentityProvider {
    package let integration: AppleIntegration

    package init(integration: AppleIntegration) {
        self.integration = integration
    }

    package var name: String { "apple" }

    package var capabilities: IdentityProviderCapabilities { [.revocation, .notifications, .transfer, .codeExchange] }

    /// Verifies an identity token (`AppleIntegration.verifyIdentityToken`): every rejection is `401
    /// invalid_identity_token` with the rule in the log.
    package func verify(_ idToken: String, rawNonce: String) throws(ServerError) -> VerifiedIdentity<AppleIdentityToken> {
        let token = try integration.verifyIdentityToken(idToken, rawNonce: rawNonce)
        return VerifiedIdentity(
            issuer: token.issuer,
            subject: token.subject,
            audiences: token.audiences,
            email: token.email,
            emailVerified: token.emailVerified,
            issuedAt: token.issuedAt,
            expiresAt: token.expiresAt,
            claims: token,
            rawClaims: VerifiedIdentity<AppleIdentityToken>.payloadClaims(of: idToken)
        )
    }

    package func linkedIdentity(
        for identity: VerifiedIdentity<AppleIdentityToken>,
        in transaction: any StoreTransaction
    ) throws(StorageError) -> AppleIdentityRecord? {
        try Self.identity(for: identity.claims, in: transaction)
    }

    /// The identity a verified token signs in with: the one with its `sub`, or else the one whose transfer subject is
    /// the token's `transfer_sub` (an identity of the sending team, to be re-keyed).
    package static func identity(for token: AppleIdentityToken, in transaction: any StoreTransaction) throws(StorageError) -> AppleIdentityRecord? {
        if let identity = try transaction.appleIdentity(subject: token.subject) { return identity }
        guard let transfer = token.transferSubject else { return nil }
        return try transaction.appleIdentity(transferSubject: transfer)
    }

    package func owner(of link: AppleIdentityRecord) -> [UInt8] {
        link.userID
    }

    /// Inserts the new identity (`apple.linked`).
    package func link(
        _ identity: VerifiedIdentity<AppleIdentityToken>,
        to userID: [UInt8],
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> [AccountEvent] {
        try transaction.insertAppleIdentity(Self.newIdentity(identity.claims, userID: userID, now: now))
        return [.appleLinked(userID: userID, appleUserID: identity.subject, realUserStatus: identity.claims.realUserStatus?.rawValue)]
    }

    /// Records what the token says (`AppleIdentityRecord.signedIn(with:)`); an identity found by its `transfer_sub` is
    /// re-keyed to the token's `sub` (`apple.transferred`).
    package func recordSignIn(
        _ identity: VerifiedIdentity<AppleIdentityToken>,
        of stored: AppleIdentityRecord,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> [AccountEvent] {
        let token = identity.claims
        var updated = stored
        updated.signedIn(with: token)
        if stored.subject != token.subject {
            // Found by its transfer_sub: the app moved to this team, and the identity takes the team's sub.
            updated.subject = token.subject
            updated.transferSubject = token.transferSubject
            updated.transferredAt = now
        }
        if stored.subject != token.subject {
            _ = try transaction.reKeyAppleIdentity(updated, from: stored.subject)
            let transferred = AccountEvent.appleTransferred(userID: stored.userID, appleUserID: token.subject, previousAppleUserID: stored.subject)
            return [transferred] + (try updated.carryRelayAddress(from: stored, in: transaction).map { [$0] } ?? [])
        } else if updated != stored {
            _ = try transaction.updateAppleIdentity(updated, subject: stored.subject)
        }
        return []
    }

    /// A new identity from a verified token; one that arrives with a `transfer_sub` is already the recipient team's.
    package static func newIdentity(_ token: AppleIdentityToken, userID: [UInt8], now: Date) -> AppleIdentityRecord {
        var identity = AppleIdentityRecord(
            subject: token.subject,
            userID: userID,
            email: token.email,
            emailVerified: token.emailVerified ?? false,
            isPrivateEmail: token.isPrivateEmail ?? false,
            realUserStatus: token.realUserStatus?.rawValue,
            transferSubject: token.transferSubject,
            transferredAt: token.transferSubject == nil ? nil : now,
            createdAt: now
        )
        identity.signedIn(with: token)
        return identity
    }
}
