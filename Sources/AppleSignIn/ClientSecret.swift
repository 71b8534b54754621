import CryptoCore
import Foundation
import JSON

/// The client secret Apple's token and revocation endpoints require: an ES256 JWT signed with the team's `.p8` key
/// ("Creating a client secret"). Pure: the key, identifiers and clock are passed in.
public struct ClientSecret: Sendable {
    /// The audience Apple requires.
    public static let audience = "https://appleid.apple.com"
    /// The default lifetime: five minutes, enough for one token request.
    public static let defaultLifetime: TimeInterval = 300
    /// The longest lifetime Apple accepts: 15,777,000 seconds (six months).
    public static let maximumLifetime: TimeInterval = 15_777_000

    /// The compact JWS to send as `client_secret`.
    public let token: String
    /// Its `iat`.
    public let issuedAt: Date
    /// Its `exp`.
    public let expiresAt: Date

    /// Mints a secret with header `{"alg":"ES256","kid":keyID}` and claims `iss` teamID, `iat` now, `exp` now +
    /// lifetime, `aud` Apple, `sub` clientID, signed with `privateKey` (a P-256 key).
    public init(
        privateKey: PrivateKey,
        keyID: String,
        teamID: String,
        clientID: String,
        lifetime: TimeInterval = ClientSecret.defaultLifetime,
        time: any TimeSource
    ) throws(AppleSignInError) {
        // Apple: kid is the key's 10-character identifier, iss the team ID, sub the client ID; none may be empty.
        guard !keyID.isEmpty, !teamID.isEmpty, !clientID.isEmpty else {
            throw AppleSignInError(.clientSecretInvalidParameter, "key ID, team ID and client ID must not be empty")
        }
        // Apple: exp may be at most 15,777,000 seconds after iat, and must be after it.
        guard lifetime >= 1, lifetime <= Self.maximumLifetime else {
            throw AppleSignInError(.clientSecretInvalidParameter, "lifetime must be between 1 and \(Int(Self.maximumLifetime)) seconds")
        }
        // Apple: the secret is signed with ES256, so the key must be an EC key on P-256.
        let publicKey: PublicKey
        do {
            publicKey = try privateKey.publicKey()
        } catch {
            throw AppleSignInError(.clientSecretInvalidKey, "the private key has no usable public key: \(error.reason)")
        }
        guard publicKey.type == .ec, publicKey.curve == .p256 else {
            throw AppleSignInError(.clientSecretInvalidKey, "the key is not a P-256 EC key, which ES256 requires")
        }
        let issued = Int64(time.now.timeIntervalSince1970.rounded(.down))
        let expires = issued + Int64(lifetime.rounded(.down))
        var claims = JSONObjectWriter()
        claims.add("iss", teamID)
        claims.add("iat", issued)
        claims.add("exp", expires)
        claims.add("aud", Self.audience)
        claims.add("sub", clientID)
        // RFC 7518 §3.4: ES256 signatures are the raw 64-byte r || s, not DER (the signing key converts).
        do {
            token = try CompactJWS.sign(payload: claims.finished(), with: try JWSSigningKey(privateKey: privateKey, algorithm: .es256, keyID: keyID))
        } catch {
            throw AppleSignInError(.clientSecretInvalidKey, "signing failed: \(error.reason)")
        }
        issuedAt = Date(timeIntervalSince1970: Double(issued))
        expiresAt = Date(timeIntervalSince1970: Double(expires))
    }

    /// Mints a secret with the PKCS#8 PEM `.p8` key Apple issues.
    public init(
        privateKeyPEM: String,
        keyID: String,
        teamID: String,
        clientID: String,
        lifetime: TimeInterval = ClientSecret.defaultLifetime,
        time: any TimeSource
    ) throws(AppleSignInError) {
        let key: PrivateKey
        do {
            key = try PrivateKey.fromPEM(privateKeyPEM)
        } catch {
            throw AppleSignInError(.clientSecretInvalidKey, "the .p8 key is not a readable PEM private key")
        }
        try self.init(privateKey: key, keyID: keyID, teamID: teamID, clientID: clientID, lifetime: lifetime, time: time)
    }
}
