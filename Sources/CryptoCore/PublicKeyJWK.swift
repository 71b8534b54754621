/// A public signing key as a JSON Web Key (RFC 7517 §4, RFC 7518 §6, RFC 8037 §2): `kty` `EC` with `crv` `P-256`,
/// `x`, `y`; `OKP` with `crv` `Ed25519`, `x`; or `RSA` with `n`, `e`; always with `kid`, `alg` and `use: "sig"`.
/// What a JWKS publishes and what passkeyd keeps of each signing key in the clear.
public struct PublicKeyJWK: Codable, Sendable, Equatable {
    public let kty: String
    public let crv: String?
    public let x: String?
    public let y: String?
    public let n: String?
    public let e: String?
    public let kid: String
    public let alg: String
    public let use: String

    /// The JWK of `key`, which must be a key `algorithm` signs with.
    public init(_ key: PublicKey, keyID: String, algorithm: JWSAlgorithm) throws(CryptoError) {
        guard algorithm.accepts(key) else { throw CryptoError(.invalidKey, "the key cannot sign \(algorithm.rawValue)") }
        var (crv, x, y, n, e): (String?, String?, String?, String?, String?) = (nil, nil, nil, nil, nil)
        switch algorithm {
        case .es256:
            // RFC 7518 §6.2.1: x and y are the full-length big-endian coordinates.
            let coordinates = try key.ecCoordinates()
            (kty, crv, x, y) = ("EC", "P-256", Base64URL.encode(coordinates.x), Base64URL.encode(coordinates.y))
        case .edDSA:
            // RFC 8037 §2: an OKP key's x is the raw public key.
            (kty, crv, x) = ("OKP", "Ed25519", Base64URL.encode(try key.rawEdwardsKey()))
        case .rs256:
            // RFC 7518 §6.3.1: n and e are Base64urlUInt, without leading zero bytes.
            let components = try key.rsaComponents()
            (kty, n, e) = ("RSA", Base64URL.encode(components.modulus), Base64URL.encode(components.exponent))
        }
        (self.crv, self.x, self.y, self.n, self.e) = (crv, x, y, n, e)
        kid = keyID
        alg = algorithm.rawValue
        use = "sig"
    }

    /// The algorithm named by `alg`, when it is one passkeyd signs with.
    public var algorithm: JWSAlgorithm? { JWSAlgorithm(rawValue: alg) }

    /// The public key this JWK describes, checked against its `alg` (curve, point on the curve, RSA size).
    public func publicKey() throws(CryptoError) -> PublicKey {
        guard use == "sig", let algorithm else { throw CryptoError(.invalidKey, "the JWK is not a signing key of ES256, EdDSA or RS256") }
        let key: PublicKey
        switch (algorithm, kty, crv) {
        case (.es256, "EC", "P-256"):
            guard let x = x.flatMap(Base64URL.decode), let y = y.flatMap(Base64URL.decode) else { throw Self.malformed }
            key = try PublicKey(curve: .p256, x: x, y: y)
        case (.edDSA, "OKP", "Ed25519"):
            guard let x = x.flatMap(Base64URL.decode) else { throw Self.malformed }
            key = try PublicKey(edwards: .ed25519, raw: x)
        case (.rs256, "RSA", nil):
            guard let n = n.flatMap(Base64URL.decode), let e = e.flatMap(Base64URL.decode) else { throw Self.malformed }
            key = try PublicKey(modulus: n, exponent: e)
        default:
            throw CryptoError(.invalidKey, "the JWK's kty and crv do not match its alg")
        }
        guard algorithm.accepts(key) else { throw CryptoError(.invalidKey, "the JWK's key cannot verify \(algorithm.rawValue)") }
        return key
    }

    private static let malformed = CryptoError(.invalidKey, "a JWK member is missing or not base64url")
}
