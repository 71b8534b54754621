import CryptoCore
import Foundation

/// Verifies ID tokens of any OpenID provider offline, following OpenID Connect Core §3.1.3.7 ("ID Token
/// Validation"). Pure: the clock is injected and the issuer's keys are handed in.
///
/// Order: compact JWS (step 1: an encrypted token has five parts and is refused); `alg` RS256 or ES256, before any
/// key lookup (steps 6–8); `kid` in the set and the key made for that `alg`; the signature (step 6); `iss` (step 2,
/// with Microsoft's `{tenantid}` rule); `aud` (step 3); `azp` (steps 4–5); `exp` (step 9); `iat` and the lifetime
/// (step 10); `sub` (§2); `nonce` (step 11).
public struct IDTokenVerifier: Sendable {
    /// The longest token accepted; ID tokens are one to two kilobytes.
    public static let maximumTokenLength = 16_384
    /// The longest `sub` accepted: OpenID Connect Core §2 caps it at 255 ASCII characters.
    public static let maximumSubjectLength = 255
    /// The default longest `exp` − `iat`: one day (Google's tokens live an hour, Microsoft's at most a day).
    public static let defaultMaximumLifetimeSeconds: TimeInterval = 86_400

    public let issuer: IssuerIdentifier
    /// The client IDs of this relying party at the provider (Google: the iOS, Android and web client IDs).
    public let clientIDs: [String]
    /// Allowed clock skew, in seconds, for `exp` and `iat`.
    public let leewaySeconds: Double
    public let maximumLifetimeSeconds: TimeInterval
    public let time: any TimeSource

    public init(
        issuer: IssuerIdentifier,
        clientIDs: [String],
        leewaySeconds: Double = 60,
        maximumLifetimeSeconds: TimeInterval = IDTokenVerifier.defaultMaximumLifetimeSeconds,
        time: any TimeSource
    ) {
        self.issuer = issuer
        self.clientIDs = clientIDs
        self.leewaySeconds = leewaySeconds
        self.maximumLifetimeSeconds = maximumLifetimeSeconds
        self.time = time
    }

    /// Verifies `token` with `keys` and the app's `rawNonce`, and returns its claims, or throws the first rule it breaks.
    /// A nil `rawNonce` is a token of no authentication request of this server (a team's previous auth system's ID
    /// token, taken as a bridge): step 11 then has nothing to compare, and the caller guards the token's single use.
    public func verify(_ token: String, keys: IssuerKeySet, rawNonce: String?) throws(OpenIDConnectError) -> IDTokenClaims {
        let payload = try verifiedPayload(token, keys: keys)
        let claims = try IDTokenClaims(claims: payload)
        // Step 2: "The Issuer Identifier for the OpenID Provider ... MUST exactly match the value of the iss Claim."
        try issuer.check(issuer: claims.issuer, tenant: claims.tenantID)
        // Step 3: "The Client MUST validate that the aud Claim contains its client_id value ... The ID Token MUST be
        // rejected if the ID Token does not list the Client as a valid audience, or if it contains additional
        // audiences not trusted by the Client."
        guard claims.audiences.allSatisfy(clientIDs.contains) else {
            throw OpenIDConnectError(.wrongAudience, "token aud holds a value that is not a configured client ID")
        }
        // Step 4: "If the ID Token contains multiple audiences, the Client SHOULD verify that an azp Claim is present."
        guard claims.audiences.count == 1 || claims.authorizedParty != nil else {
            throw OpenIDConnectError(.missingAuthorizedParty, "token has several audiences and no azp")
        }
        // Step 5: "If an azp (authorized party) Claim is present, the Client SHOULD verify that its client_id is the
        // Claim Value." With several client IDs of one project (Google: azp the Android or iOS client, aud the web
        // client), it must be one of them.
        if let party = claims.authorizedParty, !clientIDs.contains(party) {
            throw OpenIDConnectError(.wrongAuthorizedParty, "token azp is not a configured client ID")
        }
        try checkValidity(claims)
        // §2: "sub ... A locally unique and never reassigned identifier within the Issuer for the End-User ... It MUST
        // NOT exceed 255 ASCII characters in length."
        guard !claims.subject.isEmpty, claims.subject.utf8.count <= Self.maximumSubjectLength else {
            throw OpenIDConnectError(.invalidSubject, "token sub is empty or longer than \(Self.maximumSubjectLength) bytes")
        }
        if let rawNonce { try checkNonce(claims.nonce, rawNonce: rawNonce) }
        return claims
    }

    /// Steps 1 and 6–8: the JWS form, the algorithm, the key and the signature; returns the signed payload.
    private func verifiedPayload(_ token: String, keys: IssuerKeySet) throws(OpenIDConnectError) -> [UInt8] {
        // Step 1: "If the ID Token is encrypted, decrypt it" — passkeyd registers for signed tokens only, so the token
        // must be a compact JWS (RFC 7515 §7.1: three base64url parts; a JWE has five and is refused here).
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token, maximumLength: Self.maximumTokenLength)
        } catch {
            throw OpenIDConnectError(.malformed, error.reason)
        }
        // Step 7: "The alg value SHOULD be the default of RS256 or the algorithm sent by the Client in the
        // id_token_signed_response_alg parameter." Only RS256 and ES256 are accepted, before any key lookup, which
        // closes `none` and HS256 with the public key as secret (step 8, RFC 8725 §3.1).
        guard let algorithm = IDTokenAlgorithm(rawValue: jws.header.alg) else {
            throw OpenIDConnectError(.unsupportedAlgorithm, "token alg is \(jws.header.alg.prefix(16)), only RS256 and ES256 are accepted")
        }
        // Step 6 and Core §10.1: "the kid ... MUST be provided in the JOSE Header" to select the issuer's key.
        guard let keyID = jws.header.kid, let key = keys.key(id: keyID) else {
            throw OpenIDConnectError(.unknownKey, "token kid is missing or not in the issuer's JWKS")
        }
        // RFC 7517 §4.1, §4.4: the key's kty (and alg, when stated) must be those of the token's algorithm.
        guard key.algorithm == algorithm else {
            throw OpenIDConnectError(.keyMismatch, "token alg \(algorithm.rawValue) does not match the key it names")
        }
        // Step 6: "The Client MUST validate the signature of all other ID Tokens according to JWS using the algorithm
        // specified in the JWT alg Header Parameter", with OpenSSL (RFC 7518 §3.3 PKCS #1 v1.5, §3.4 ECDSA r‖s).
        guard jws.verifySignature(with: key.publicKey, allowedAlgorithms: [algorithm.rawValue]) else {
            throw OpenIDConnectError(.invalidSignature, "token signature does not verify with the key it names")
        }
        return jws.payload
    }

    /// Steps 9 and 10: the validity period.
    private func checkValidity(_ claims: IDTokenClaims) throws(OpenIDConnectError) {
        let now = time.now
        // Step 9: "The current time MUST be before the time represented by the exp Claim (possibly allowing for some
        // small leeway to account for clock skew)."
        guard claims.expiresAt > now.addingTimeInterval(-leewaySeconds) else {
            throw OpenIDConnectError(.expired, "token expired")
        }
        // Step 10: "The iat Claim can be used to reject tokens that were issued too far away from the current time."
        guard claims.issuedAt <= now.addingTimeInterval(leewaySeconds) else {
            throw OpenIDConnectError(.issuedInFuture, "token iat is in the future")
        }
        // Step 10 again: a token living longer than any provider issues them stays replayable for longer than the
        // server remembers the nonces it has seen.
        guard claims.expiresAt.timeIntervalSince(claims.issuedAt) <= maximumLifetimeSeconds else {
            throw OpenIDConnectError(.lifetimeTooLong, "token exp is more than \(Int(maximumLifetimeSeconds)) s after its iat")
        }
    }

    /// Step 11: "If a nonce value was sent in the Authentication Request, a nonce Claim MUST be present and its value
    /// checked to verify that it is the same value as the one that was sent." The app sends the lowercase hex
    /// SHA-256 of its raw nonce (what Google's iOS and Android samples pass as `nonce`, as for Apple) and gives
    /// passkeyd the raw nonce; compared in constant time.
    private func checkNonce(_ nonce: String?, rawNonce: String) throws(OpenIDConnectError) {
        guard let nonce else { throw OpenIDConnectError(.missingNonce, "token has no nonce") }
        let expected = Hex.encode(DigestAlgorithm.sha256.hash(Array(rawNonce.utf8)))
        guard ConstantTime.equals(nonce, expected) else {
            throw OpenIDConnectError(.nonceMismatch, "token nonce is not the SHA-256 of the raw nonce")
        }
    }
}
