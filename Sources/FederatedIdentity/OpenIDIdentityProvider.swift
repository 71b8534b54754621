import AccountEvents
import CryptoCore
import Foundation
import HTTPEdge
import Observability
import OpenIDConnect
import OutboundHTTP
import Storage

/// A configured OpenID provider (Google, or any OpenID Connect issuer) as an `IdentityProvider`: ID tokens verified
/// against its cached keys (`IDTokenVerifier`, OpenID Connect Core §3.1.3.7), identities kept as the store's federated
/// identities, keyed by the token's `iss` and `sub`.
package struct OpenIDIdentityProvider: IdentityProvider {
    package let settings: IdentityProviderSettings
    package let keyCache: IssuerKeyCache
    package let verifier: IDTokenVerifier
    /// The `private_key_jwt` key the code exchange signs its client assertion with (none: `client_secret_post`).
    package let assertionKey: JWSSigningKey?
    /// The outbound client: the key cache's fetches and the web flow's code exchange.
    package let client: HTTPClient
    package let random: any RandomSource
    package let time: any TimeSource
    package let log: Logger

    package init(
        settings: IdentityProviderSettings,
        assertionKey: JWSSigningKey?,
        client: HTTPClient,
        random: any RandomSource,
        time: any TimeSource,
        log: Logger
    ) {
        self.settings = settings
        self.assertionKey = assertionKey
        keyCache = IssuerKeyCache(
            provider: settings.name,
            discoveryURL: settings.discoveryURL,
            issuer: settings.issuer,
            client: client,
            time: time,
            log: log
        )
        verifier = IDTokenVerifier(issuer: settings.issuer, clientIDs: settings.clientIDs, time: time)
        self.client = client
        self.random = random
        self.time = time
        self.log = log
    }

    package var name: String { settings.name }

    package var capabilities: IdentityProviderCapabilities { [] }

    /// Verifies an ID token with the cached keys (503 at once without them). A token naming an unknown key starts a
    /// refresh (at most once a minute) and is then 503, so that its retry meets the new keys; past that it is refused.
    /// Every refusal is `401 invalid_identity_token`, the rule in the log.
    package func verify(_ idToken: String, rawNonce: String) throws(ServerError) -> VerifiedIdentity<IDTokenClaims> {
        try verified(idToken, rawNonce: rawNonce)
    }

    /// `verify`, or with a nil `rawNonce` a bridge provider's token of no request of this server (`bridge`: its
    /// single use is the replay guard's, by the token itself).
    package func verified(_ idToken: String, rawNonce: String?) throws(ServerError) -> VerifiedIdentity<IDTokenClaims> {
        let now = time.now
        let keys = try keyCache.keys(now: now)
        let claims: IDTokenClaims
        do throws(OpenIDConnectError) {
            claims = try verifier.verify(idToken, keys: keys, rawNonce: rawNonce)
        } catch {
            if error.code == .unknownKey, keyCache.refreshForUnknownKey(now: now) {
                throw ServerError(.identityProviderUnavailable, detail: "\(name): refreshing the keys for an unknown kid")
            }
            log("identity sign-in refused (\(name)): \(error.code): \(error.reason)", event: "identity")
            throw ServerError(.invalidIdentityToken)
        }
        return VerifiedIdentity(
            issuer: claims.issuer,
            subject: claims.subject,
            audiences: claims.audiences,
            email: claims.email,
            emailVerified: claims.emailVerified,
            issuedAt: claims.issuedAt,
            expiresAt: claims.expiresAt,
            claims: claims,
            rawClaims: VerifiedIdentity<IDTokenClaims>.payloadClaims(of: idToken)
        )
    }

    package func linkedIdentity(
        for identity: VerifiedIdentity<IDTokenClaims>,
        in transaction: any StoreTransaction
    ) throws(StorageError) -> FederatedIdentityRecord? {
        try transaction.federatedIdentity(issuer: identity.issuer, subject: identity.subject)
    }

    package func owner(of link: FederatedIdentityRecord) -> [UInt8] {
        link.userID
    }

    /// Inserts the new identity (`identity.linked`).
    package func link(
        _ identity: VerifiedIdentity<IDTokenClaims>,
        to userID: [UInt8],
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> [AccountEvent] {
        let record = FederatedIdentityRecord(
            issuer: identity.issuer,
            subject: identity.subject,
            userID: userID,
            provider: name,
            email: Self.boundedEmail(identity.email),
            emailVerified: identity.emailVerified == true,
            createdAt: now,
            lastSignInAt: now
        )
        try transaction.insertFederatedIdentity(record)
        return [.identityLinked(userID: userID, provider: name, issuer: identity.issuer, subject: identity.subject)]
    }

    /// Records the sign-in time and what the token says of the email.
    package func recordSignIn(
        _ identity: VerifiedIdentity<IDTokenClaims>,
        of stored: FederatedIdentityRecord,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> [AccountEvent] {
        var updated = stored
        updated.email = Self.boundedEmail(identity.email)
        updated.emailVerified = identity.emailVerified == true
        updated.lastSignInAt = now
        _ = try transaction.updateFederatedIdentity(updated)
        return []
    }

    /// The email kept of a token: dropped when longer than a store keeps.
    package static func boundedEmail(_ email: String?) -> String? {
        guard let email, !email.isEmpty, email.utf8.count <= FederatedIdentityRecord.maximumEmailBytes else { return nil }
        return email
    }
}
