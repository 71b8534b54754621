import CryptoCore

/// The only JWS algorithms an ID token may be signed with (RFC 7518 §3.3 and §3.4): RS256, which every OpenID
/// provider supports (OpenID Connect Discovery §3), and ES256. `none`, the HMAC algorithms and every other value are
/// not representable, so they are refused before any key is looked up (RFC 8725 §2.1, §3.1).
public enum IDTokenAlgorithm: String, Sendable, CaseIterable {
    case rs256 = "RS256"
    case es256 = "ES256"

    /// The smallest RSA modulus accepted for RS256 (RFC 7518 §3.3).
    public static let minimumModulusBits = 2048

    /// Whether `key` can verify this algorithm: RSA of at least 2048 bits, or EC on P-256.
    func accepts(_ key: PublicKey) -> Bool {
        switch self {
        case .rs256: key.type == .rsa && key.bits >= Self.minimumModulusBits
        case .es256: key.type == .ec && key.curve == .p256
        }
    }
}
