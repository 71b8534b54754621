import CryptoCore
import Foundation

/// Verifies Sign in with Apple identity tokens offline against Apple's JWKS, following Apple's "Verify the identity
/// token" steps (signature, nonce, iss, aud, exp) and RFC 7519. Pure: the clock is injected and keys are passed in.
///
/// Rules, in order: compact JWS form; header `alg` is RS256 (anything else, `none` and HS256 included, is refused
/// before a key is looked up); `kid` names a key of the set; the RS256 signature verifies; `iss` is one of `issuers`;
/// `aud` is one of `audiences` (when `aud` is an array, one member matching is enough, as OpenID Connect Core §3.1.3.7
/// allows); `exp` > now − leeway; `iat` ≤ now + leeway; `sub` is non-empty; the nonce matches `NonceExpectation`.
public struct IdentityTokenVerifier: Sendable {
    /// Apple's issuer identifier.
    public static let appleIssuer = "https://appleid.apple.com"

    public let issuers: [String]
    /// The client IDs accepted: the app's bundle ID for native sign-in, the Services ID for the web.
    public let audiences: [String]
    /// The longest `exp` − `iat` accepted: one day, as Apple issues them.
    public static let maximumLifetimeSeconds: TimeInterval = 86_400
    /// Allowed clock skew, in seconds, for `exp` and `iat`.
    public let leewaySeconds: Double
    public let time: any TimeSource

    public init(issuers: [String] = [IdentityTokenVerifier.appleIssuer], audiences: [String], leewaySeconds: Double = 60, time: any TimeSource) {
        self.issuers = issuers
        self.audiences = audiences
        self.leewaySeconds = leewaySeconds
        self.time = time
    }

    /// The longest token accepted; Apple's identity tokens and notifications are about 1 KB.
    public static let maximumTokenLength = 16_384

    /// Verifies `token` and returns its claims, or throws the first rule it breaks.
    public func verify(_ token: String, keys: JSONWebKeySet, nonce: NonceExpectation) throws(AppleSignInError) -> AppleIdentityToken {
        let jws = try verifiedSignature(token, keys: keys)
        // RFC 7519 §4.1 and Apple: the claims have their documented types; iss, aud, exp and iat are required.
        let claims = try AppleIdentityToken(claims: jws.payload)
        try checkRegisteredClaims(issuer: claims.issuer, audiences: claims.audiences, expiresAt: claims.expiresAt, issuedAt: claims.issuedAt)
        // Apple: sub is the unique identifier of the user; a token without one identifies no one.
        guard !claims.subject.isEmpty else { throw AppleSignInError(.missingSubject, "token has no sub") }
        try checkNonce(claims, expectation: nonce)
        return claims
    }

    /// The JWS rules shared with server notifications: form, algorithm, key and signature.
    func verifiedSignature(_ token: String, keys: JSONWebKeySet) throws(AppleSignInError) -> CompactJWS {
        // RFC 7515 §7.1: the token is a compact JWS (strict base64url; Apple's tokens are about 1 KB).
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token, maximumLength: Self.maximumTokenLength)
        } catch {
            throw AppleSignInError(.appleTokenMalformed, error.reason)
        }
        // Apple signs with RS256 only (its discovery document); refusing every other alg before key lookup closes
        // `none` and the HS256-with-the-public-key confusion (RFC 8725 §3.1).
        guard jws.header.alg == "RS256" else {
            throw AppleSignInError(.unsupportedAlgorithm, "token alg is \(jws.header.alg.prefix(16)), only RS256 is accepted")
        }
        // Apple: the header kid names the JWKS key that signed the token.
        guard let keyID = jws.header.kid, let key = keys.key(id: keyID) else {
            throw AppleSignInError(.unknownKey, "token kid is missing or not in the JWKS")
        }
        // RFC 7518 §3.3: RSASSA-PKCS1-v1_5 with SHA-256 over the ASCII signing input, verified by OpenSSL.
        guard key.publicKey.verify(signature: jws.signature, message: jws.signingInput, algorithm: .rsaPKCS1SHA256) else {
            throw AppleSignInError(.invalidSignature, "token signature does not verify with key \(key.keyID)")
        }
        return jws
    }

    /// The claim rules shared with server notifications: issuer, audience and validity period.
    func checkRegisteredClaims(issuer: String, audiences tokenAudiences: [String], expiresAt: Date, issuedAt: Date) throws(AppleSignInError) {
        // Apple: iss contains https://appleid.apple.com.
        guard issuers.contains(issuer) else { throw AppleSignInError(.wrongIssuer, "token iss is not an accepted issuer") }
        // Apple: aud is the developer's client_id; with an array, one accepted member is enough.
        guard tokenAudiences.contains(where: audiences.contains) else {
            throw AppleSignInError(.wrongAudience, "token aud is not an accepted client ID")
        }
        let now = time.now
        // RFC 7519 §4.1.4 and Apple: the current time is before exp, allowing the leeway for clock skew.
        guard expiresAt > now.addingTimeInterval(-leewaySeconds) else {
            throw AppleSignInError(.expired, "token expired at \(expiresAt.ISO8601Format())")
        }
        // RFC 7519 §4.1.6: a token issued later than now (plus the leeway) comes from a wrong clock or a forger.
        guard issuedAt <= now.addingTimeInterval(leewaySeconds) else {
            throw AppleSignInError(.issuedInFuture, "token iat \(issuedAt.ISO8601Format()) is in the future")
        }
        // Apple issues identity tokens and notifications valid for one day: a longer-lived one was not made by Apple
        // as documented, and would stay replayable for longer than the server remembers what it has seen.
        guard expiresAt.timeIntervalSince(issuedAt) <= Self.maximumLifetimeSeconds else {
            throw AppleSignInError(.lifetimeTooLong, "token exp is more than a day after its iat")
        }
    }

    private func checkNonce(_ claims: AppleIdentityToken, expectation: NonceExpectation) throws(AppleSignInError) {
        guard case .raw(let raw) = expectation else { return }
        guard let nonce = claims.nonce else {
            // Apple: nonce_supported false marks a platform that cannot pass a nonce; Apple's guidance is then to
            // treat the nonce as optional. Any other token without a nonce is refused.
            guard claims.nonceSupported == false else {
                throw AppleSignInError(.missingNonce, "token has no nonce and does not say nonce_supported false")
            }
            return
        }
        // Apple: the nonce is the hex SHA-256 of the client's raw nonce; compared in constant time.
        let expected = Hex.encode(DigestAlgorithm.sha256.hash(Array(raw.utf8)))
        guard ConstantTime.equals(Array(nonce.utf8), Array(expected.utf8)) else {
            throw AppleSignInError(.nonceMismatch, "token nonce is not the SHA-256 of the expected raw nonce")
        }
    }
}
