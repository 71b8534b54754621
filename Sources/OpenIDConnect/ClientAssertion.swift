import CryptoCore
import Foundation
import JSON

/// The signed JWT with which a client authenticates at a provider's token endpoint instead of a secret:
/// `private_key_jwt` (OpenID Connect Core §9, RFC 7523 §2.2 and §3). Pure: the key, clock and randomness are passed in.
public struct ClientAssertion: Sendable {
    /// RFC 7523 §2.2: the `client_assertion_type` sent with it.
    public static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// Seconds until `exp`: enough for the one token request it is minted for.
    public static let lifetime: Int64 = 60

    /// The compact JWS to send as `client_assertion`.
    public let token: String

    /// Mints an assertion with header `{"alg", "kid"}` of `key` and claims `iss` = `sub` = `clientID`, `aud` the token
    /// endpoint, a fresh random `jti`, `iat` now and `exp` a minute later.
    public init(clientID: String, audience: String, key: JWSSigningKey, random: any RandomSource, time: any TimeSource) throws(CryptoError) {
        let issued = Int64(time.now.timeIntervalSince1970.rounded(.down))
        var claims = JSONObjectWriter()
        // OpenID Connect Core §9: iss and sub are the client_id; aud is the token endpoint's URL.
        claims.add("iss", clientID)
        claims.add("sub", clientID)
        claims.add("aud", audience)
        // OpenID Connect Core §9: jti is unique, so that the provider can refuse a replayed assertion.
        claims.add("jti", Base64URL.encode(random.bytes(count: 32)))
        claims.add("iat", issued)
        claims.add("exp", issued + Self.lifetime)
        token = try CompactJWS.sign(payload: claims.finished(), with: key)
    }

    /// The signing key of a PEM private key (PKCS #8 or traditional): ES256 for a P-256 key, RS256 for an RSA key of
    /// at least 2048 bits; `keyID` becomes the header's `kid`.
    /// - Throws: `crypto.invalidKey` for an unreadable key, another kind of key, or an unusable key ID.
    public static func signingKey(pem: String, keyID: String) throws(CryptoError) -> JWSSigningKey {
        let key = try PrivateKey.fromPEM(pem)
        let algorithm: JWSAlgorithm = try key.publicKey().type == .rsa ? .rs256 : .es256
        return try JWSSigningKey(privateKey: key, algorithm: algorithm, keyID: keyID)
    }
}
