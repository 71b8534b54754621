import CryptoCore
import Foundation

/// Verifies an access token this deployment signed, for passkeyd's own use (the read-only endpoints that take one,
/// introspection): RFC 9068 §4. Every token costs one signature verification, whether or not it is well formed or
/// names a known key, so that how long a refusal takes does not tell garbage from a token of an unknown `kid`.
public struct AccessTokenVerifier: Sendable {
    /// The longest token looked at.
    public static let maximumLength = 8192
    /// Nodes' clocks may differ this much (`nbf`, `iat`).
    static let clockLeeway: TimeInterval = 60

    let issuer: String
    let audiences: [String]
    let ring: SigningKeyRing
    /// A token whose `iat` is before this instant (the second this server started) may carry a high-S ES256 signature:
    /// an earlier release issued either form, and its tokens verify until they expire. Every token issued since is
    /// low-S, and the high-S twin of one is refused.
    public let highSAcceptedBefore: Date

    /// Whether `text` has the form of a JWT (three parts): session tokens are one base64url string.
    public static func looksLikeJWT(_ text: String) -> Bool {
        text.utf8.contains(UInt8(ascii: "."))
    }

    /// The token's claims when its signature, `typ`, `iss`, `aud` and times verify at `now`; otherwise nil and the
    /// rule that failed (for the log).
    public func verify(_ token: String, now: Date) -> (claims: AccessTokenClaims?, failure: String?) {
        let jws = try? CompactJWS(token, maximumLength: Self.maximumLength)
        let named = jws.flatMap { $0.header.kid }.flatMap { ring.publishedKey(id: $0, at: now) }
        // RFC 7515 §5.2 steps 8–9, with RFC 8725 §3.1: the algorithm is the key's, never the header's choice.
        let signature = signatureVerifies(jws, key: named, token: token, now: now)
        guard signature.verified, let jws, let key = named, jws.header.alg == key.record.algorithm else {
            return (nil, jws == nil ? "not a compact JWS" : named == nil ? "no published key has this kid" : "the signature does not verify")
        }
        // RFC 9068 §4 step 1: the typ header is at+jwt.
        guard jws.header.typ == AccessTokenMinter.type || jws.header.typ == "application/at+jwt" else { return (nil, "typ is not at+jwt") }
        guard let claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: Data(jws.payload)) else {
            return (nil, "the claims are not an access token's")
        }
        // RFC 9068 §4 step 3: iss is this deployment's issuer.
        guard claims.iss == issuer else { return (nil, "iss is not this issuer") }
        // RFC 9068 §4 step 4: aud names a configured audience.
        guard claims.aud.contains(where: audiences.contains) else { return (nil, "aud names no configured audience") }
        // RFC 9068 §4 step 6 (RFC 7519 §4.1.4, §4.1.5): not expired, already valid.
        let seconds = now.timeIntervalSince1970
        guard Double(claims.exp) > seconds else { return (nil, "expired") }
        guard Double(claims.nbf ?? claims.iat) <= seconds + Self.clockLeeway, Double(claims.iat) <= seconds + Self.clockLeeway else {
            return (nil, "not valid yet")
        }
        // Only low-S signatures are issued: a high-S one is the malleated twin of a token, unless an earlier release
        // issued it (before this server started).
        guard signature.isLowS || Double(claims.iat) < highSAcceptedBefore.timeIntervalSince1970.rounded(.down) else {
            return (nil, "a high-S signature (the twin of a token this release issued)")
        }
        return (claims, nil)
    }

    public init(issuer: String, audiences: [String], ring: SigningKeyRing, highSAcceptedBefore: Date) {
        self.issuer = issuer
        self.audiences = audiences
        self.ring = ring
        self.highSAcceptedBefore = highSAcceptedBefore
    }

    /// Exactly one signature verification for every token: with the key its `kid` names, or else with the key that
    /// signs now; over its signing input, or else its bytes; with its signature when it has the algorithm's form,
    /// or else a well-formed one that cannot verify. So a refusal costs the same whatever was wrong.
    private func signatureVerifies(_ jws: CompactJWS?, key named: SigningKeyRing.Key?, token: String, now: Date) -> (verified: Bool, isLowS: Bool) {
        guard let key = named ?? ring.publishedKeys(at: now).last else { return (false, false) }
        let algorithm = key.signing.algorithm
        let message = jws?.signingInput ?? Array(token.utf8.prefix(Self.maximumLength))
        let presented = named == nil ? nil : jws?.signature
        let signature: [UInt8]
        var isLowS = true
        switch algorithm {
        case .es256:
            // RFC 7518 §3.4: r || s, 64 bytes for P-256; the decoy is r = s = 1, which OpenSSL verifies in full. Whether
            // s is low (s ≤ n/2, the only form passkeyd issues) is found for the decoy too: the same work for all.
            let raw = presented ?? Self.decoyECDSA
            isLowS = ECDSASignatureEncoding.isLowS(raw: raw, curve: .p256)
            signature = ECDSASignatureEncoding.derEncoded(raw: raw, curve: .p256) ?? [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]
        case .edDSA:
            signature = presented.flatMap { $0.count == 64 ? $0 : nil } ?? [UInt8](repeating: 0x01, count: 64)
        case .rs256:
            let length = key.signing.publicKey.bits / 8
            signature = presented.flatMap { $0.count == length ? $0 : nil } ?? [UInt8](repeating: 0x01, count: length)
        }
        let verified = key.signing.publicKey.verify(signature: signature, message: message, algorithm: algorithm.signatureAlgorithm)
        return (verified && presented != nil && named != nil, isLowS)
    }

    /// A raw ES256 signature r = s = 1, checked for low S like a presented one.
    private static let decoyECDSA = [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [1]
}
