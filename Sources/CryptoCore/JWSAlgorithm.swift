/// The JWS algorithms passkeyd signs with (RFC 7518 §3.1, RFC 8037 §3.1): ES256 (ECDSA P-256 with SHA-256, the raw
/// `r || s` signature), EdDSA (Ed25519) and RS256 (RSASSA-PKCS1-v1_5 with SHA-256, 2048-bit keys).
public enum JWSAlgorithm: String, Sendable, CaseIterable {
    case es256 = "ES256"
    case edDSA = "EdDSA"
    case rs256 = "RS256"

    /// The RSA modulus size of the keys passkeyd generates for RS256.
    public static let rsaKeyBits = 2048

    /// The OpenSSL signature scheme.
    public var signatureAlgorithm: SignatureAlgorithm {
        switch self {
        case .es256: .ecdsaSHA256
        case .edDSA: .ed25519
        case .rs256: .rsaPKCS1SHA256
        }
    }

    /// A new private key for this algorithm: P-256, Ed25519, or RSA of `rsaKeyBits` bits.
    public func generateKey() throws(CryptoError) -> PrivateKey {
        switch self {
        case .es256: try PrivateKey.generateEC(.p256)
        case .edDSA: try PrivateKey.generateEdwards(.ed25519)
        case .rs256: try PrivateKey.generateRSA(bits: Self.rsaKeyBits)
        }
    }

    /// Whether `key` is the kind of public key this algorithm signs with (RS256: at least 2048 bits).
    public func accepts(_ key: PublicKey) -> Bool {
        switch self {
        case .es256: key.type == .ec && key.curve == .p256
        case .edDSA: key.type == .ed25519
        case .rs256: key.type == .rsa && key.bits >= Self.rsaKeyBits
        }
    }
}
