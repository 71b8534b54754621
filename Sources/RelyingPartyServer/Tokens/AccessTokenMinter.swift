import CryptoCore
import Foundation

/// Mints access tokens: a JWT (RFC 9068) signed with the deployment's current key, header `typ: at+jwt` and `kid`.
/// Claims: `iss`, `sub` (the user handle, base64url), `aud` (a string for one audience, else a list), `iat`, `nbf`,
/// `exp` (one lifetime, never after the session), `jti`, `client_id` (the relying party ID: the first-party app),
/// `sid` (the session's public ID), `auth_time`, `amr`, `username`, and `email` / `email_verified` when known.
/// The claims are written directly as bytes (`JSONObjectWriter`), so that minting costs little more than signing.
package struct AccessTokenMinter: Sendable {
    package static let type = "at+jwt"

    let issuer: String
    let audiences: [String]
    let clientID: String
    let lifetime: TimeInterval
    let random: any RandomSource

    package init(issuer: String, audiences: [String], clientID: String, lifetime: TimeInterval, random: any RandomSource) {
        self.issuer = issuer
        self.audiences = audiences
        self.clientID = clientID
        self.lifetime = lifetime
        self.random = random
    }

    /// The signed token and its `exp`.
    package func mint(for subject: AccessTokenSubject, with key: JWSSigningKey, now: Date) throws(CryptoError) -> (token: String, expiresAt: Date) {
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        let expires = min(issued + Int64(lifetime), Int64(subject.sessionExpiresAt.timeIntervalSince1970.rounded(.down)))
        var claims = JSONObjectWriter(capacity: 384)
        claims.add("iss", issuer)
        claims.add("sub", Base64URL.encode(subject.userID))
        if audiences.count == 1 { claims.add("aud", audiences[0]) } else { claims.add("aud", audiences) }
        claims.add("iat", issued)
        claims.add("nbf", issued)
        claims.add("exp", expires)
        claims.add("jti", Base64URL.encode(random.bytes(count: 16)))
        claims.add("client_id", clientID)
        claims.add("sid", Base64URL.encode(subject.sessionID))
        claims.add("auth_time", Int64(subject.authenticatedAt.timeIntervalSince1970.rounded(.down)))
        claims.add("amr", subject.authenticationMethods)
        claims.add("username", subject.username)
        if let email = subject.email {
            claims.add("email", email)
            claims.add("email_verified", subject.emailVerified ?? false)
        }
        let token = try CompactJWS.sign(payload: claims.finished(), type: Self.type, with: key)
        return (token, Date(timeIntervalSince1970: Double(expires)))
    }
}
