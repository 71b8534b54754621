import CryptoCore

/// COSE algorithm identifiers (IANA "COSE Algorithms") that passkeyd verifies.
public enum COSEAlgorithm: Int, Sendable, CaseIterable, Codable {
    case es256 = -7
    case es384 = -35
    case es512 = -36
    case eddsa = -8
    case ed25519 = -19
    case ed448 = -53
    case rs256 = -257
    case rs384 = -258
    case rs512 = -259
    case ps256 = -37
    case ps384 = -38
    case ps512 = -39
    case rs1 = -65535

    /// What passkeyd offers by default in `pubKeyCredParams`, most preferred first. RS1 is verifiable but never offered by default.
    public static let defaultOffered: [COSEAlgorithm] = [.es256, .eddsa, .rs256]

    /// Every algorithm the verifier accepts when a ceremony does not restrict the list.
    public static let verifiable: [COSEAlgorithm] = allCases

    /// The OpenSSL signature scheme for this algorithm.
    public var signatureAlgorithm: SignatureAlgorithm {
        switch self {
        case .es256: .ecdsaSHA256
        case .es384: .ecdsaSHA384
        case .es512: .ecdsaSHA512
        case .eddsa, .ed25519: .ed25519
        case .ed448: .ed448
        case .rs256: .rsaPKCS1SHA256
        case .rs384: .rsaPKCS1SHA384
        case .rs512: .rsaPKCS1SHA512
        case .ps256: .rsaPSSSHA256
        case .ps384: .rsaPSSSHA384
        case .ps512: .rsaPSSSHA512
        case .rs1: .rsaPKCS1SHA1
        }
    }

    /// The signature scheme when the key's curve refines a generic identifier (EdDSA over Ed448).
    func signatureAlgorithm(for key: PublicKey) -> SignatureAlgorithm {
        if self == .eddsa, key.type == .ed448 { return .ed448 }
        return signatureAlgorithm
    }

    /// The EC curve this algorithm requires, for ECDSA algorithms.
    public var requiredCurve: EllipticCurve? {
        switch self {
        case .es256: .p256
        case .es384: .p384
        case .es512: .p521
        default: nil
        }
    }
}
