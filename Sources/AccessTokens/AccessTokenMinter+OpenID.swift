import CryptoCore
import Foundation
import JSON

extension AccessTokenMinter {
    /// An access token of the OpenID provider (RFC 9068) for the client of `subject.grant`: `aud` and `client_id` are the
    /// client's ID (never a first-party audience: the configuration refuses a client ID that is one), `sid` the grant's
    /// ID (so that revoking the grant ends it at `/oauth/userinfo`), `scope` the granted scopes, `auth_time`.
    public func mintClientAccessToken(
        for subject: OpenIDGrantSubject,
        with key: JWSSigningKey,
        now: Date
    ) throws(CryptoError) -> (
        token: String, expiresAt: Date
    ) {
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        let expires = min(issued + Int64(lifetime), Int64(subject.grant.expiresAt.timeIntervalSince1970.rounded(.down)))
        var claims = JSONObjectWriter(capacity: 320)
        claims.add("iss", issuer)
        claims.add("sub", subjectRule.subject(userID: subject.user.id, externalID: subject.user.externalID))
        claims.add("aud", subject.grant.clientID)
        claims.add("iat", issued)
        claims.add("nbf", issued)
        claims.add("exp", expires)
        claims.add("jti", base64URL: tokenIDs.next())
        claims.add("client_id", subject.grant.clientID)
        claims.add("sid", base64URL: subject.grant.id)
        claims.add("scope", subject.grant.scope)
        claims.add("auth_time", Int64(subject.grant.authenticatedAt.timeIntervalSince1970.rounded(.down)))
        let token = try CompactJWS.sign(payload: claims.finished(), type: Self.type, with: key)
        return (token, Date(timeIntervalSince1970: Double(expires)))
    }

    /// An ID token (OpenID Connect Core §2, §3.1.3.6): `iss`, `sub`, `aud` and `azp` (the client), `exp`, `iat`,
    /// `auth_time`, `nonce` when the request had one, `amr`, `at_hash` of `accessToken`, `sid` (the passkeyd session
    /// that signed the person in), and the claims of the granted scopes (`profile`: `preferred_username`, `name`;
    /// `email`: `email`, `email_verified`).
    public func mintIDToken(for subject: OpenIDGrantSubject, accessToken: String, with key: JWSSigningKey, now: Date) throws(CryptoError) -> String {
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        var claims = JSONObjectWriter(capacity: 512)
        claims.add("iss", issuer)
        claims.add("sub", subjectRule.subject(userID: subject.user.id, externalID: subject.user.externalID))
        claims.add("aud", subject.grant.clientID)
        claims.add("azp", subject.grant.clientID)
        claims.add("iat", issued)
        claims.add("exp", issued + Int64(lifetime))
        claims.add("auth_time", Int64(subject.grant.authenticatedAt.timeIntervalSince1970.rounded(.down)))
        if let nonce = subject.nonce { claims.add("nonce", nonce) }
        claims.add("amr", subject.grant.authenticationMethods.split(separator: " ").map(String.init))
        claims.add("at_hash", Self.halfHash(of: accessToken, algorithm: key.algorithm))
        claims.add("sid", base64URL: subject.grant.sessionID)
        Self.addUserClaims(of: subject, to: &claims)
        return try CompactJWS.sign(payload: claims.finished(), type: "JWT", with: key)
    }

    /// The claims of the granted scopes, as the ID token and `/oauth/userinfo` give them, and `external_id` (the app's
    /// own id) when the account has one.
    public static func addUserClaims(of subject: OpenIDGrantSubject, to claims: inout JSONObjectWriter) {
        if let externalID = subject.user.externalID { claims.add("external_id", externalID) }
        let scopes = subject.scopes
        if scopes.contains("profile") {
            claims.add("preferred_username", subject.user.name)
            claims.add("name", subject.user.displayName)
        }
        if scopes.contains("email"), let email = subject.user.email {
            claims.add("email", email)
            claims.add("email_verified", subject.user.emailVerified)
        }
    }

    /// `at_hash` (OpenID Connect Core §3.1.3.6): base64url of the left half of the hash of the token's ASCII, with the
    /// hash of the ID token's `alg` (SHA-256 for ES256 and RS256; SHA-512 for EdDSA with Ed25519, as the OpenID
    /// Foundation's registration of EdDSA for OpenID Connect specifies).
    static func halfHash(of token: String, algorithm: JWSAlgorithm) -> String {
        let digest: [UInt8] =
            switch algorithm {
            case .es256, .rs256: DigestAlgorithm.sha256.hash(Array(token.utf8))
            case .edDSA: DigestAlgorithm.sha512.hash(Array(token.utf8))
            }
        return Base64URL.encode(Array(digest.prefix(digest.count / 2)))
    }
}
