import CryptoCore

/// One signing key of an issuer's JSON Web Key Set (RFC 7517 §4): its `kid`, the one algorithm it verifies (from
/// `kty`, `crv` and `alg`), and the OpenSSL public key.
public struct IssuerKey: Sendable {
    /// `kid`: how a token's header names the key.
    public let keyID: String
    /// RS256 for an `RSA` key, ES256 for an `EC` key on P-256.
    public let algorithm: IDTokenAlgorithm
    public let publicKey: PublicKey

    /// A key that must suit `algorithm` (RSA of 2048 bits or more, or P-256) and have a non-empty `kid`.
    public init(keyID: String, algorithm: IDTokenAlgorithm, publicKey: PublicKey) throws(OpenIDConnectError) {
        // RFC 7517 §4.5: kid is how a token names its key, so it must be present.
        guard !keyID.isEmpty, keyID.utf8.count <= IssuerKeySet.maximumKeyIDLength else {
            throw OpenIDConnectError(.jwksMalformed, "a signing key has an empty or over-long kid")
        }
        // RFC 7518 §3.3, §3.4: RS256 needs RSA of 2048 bits or more, ES256 a P-256 key.
        guard algorithm.accepts(publicKey) else {
            throw OpenIDConnectError(.jwksMalformed, "a key is not usable for \(algorithm.rawValue)")
        }
        self.keyID = keyID
        self.algorithm = algorithm
        self.publicKey = publicKey
    }
}
