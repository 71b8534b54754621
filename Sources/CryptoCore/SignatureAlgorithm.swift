import COpenSSL

/// A signature scheme: key type, padding and hash, as OpenSSL verifies it.
public enum SignatureAlgorithm: String, Sendable, CaseIterable {
    case ecdsaSHA256, ecdsaSHA384, ecdsaSHA512
    case rsaPKCS1SHA1, rsaPKCS1SHA256, rsaPKCS1SHA384, rsaPKCS1SHA512
    case rsaPSSSHA256, rsaPSSSHA384, rsaPSSSHA512
    case ed25519, ed448

    /// The hash applied to the message, or nil for schemes that hash internally (EdDSA).
    public var digest: DigestAlgorithm? {
        switch self {
        case .ecdsaSHA256, .rsaPKCS1SHA256, .rsaPSSSHA256: .sha256
        case .ecdsaSHA384, .rsaPKCS1SHA384, .rsaPSSSHA384: .sha384
        case .ecdsaSHA512, .rsaPKCS1SHA512, .rsaPSSSHA512: .sha512
        case .rsaPKCS1SHA1: .sha1
        case .ed25519, .ed448: nil
        }
    }

    /// The key type this scheme needs.
    public var keyType: PublicKey.KeyType {
        switch self {
        case .ecdsaSHA256, .ecdsaSHA384, .ecdsaSHA512: .ec
        case .rsaPKCS1SHA1, .rsaPKCS1SHA256, .rsaPKCS1SHA384, .rsaPKCS1SHA512,
            .rsaPSSSHA256, .rsaPSSSHA384, .rsaPSSSHA512:
            .rsa
        case .ed25519: .ed25519
        case .ed448: .ed448
        }
    }

    var usesPSSPadding: Bool {
        switch self {
        case .rsaPSSSHA256, .rsaPSSSHA384, .rsaPSSSHA512: true
        default: false
        }
    }
}
