/// The NIST curves passkeyd accepts for EC keys.
public enum EllipticCurve: String, Sendable, CaseIterable {
    case p256 = "P-256"
    case p384 = "P-384"
    case p521 = "P-521"

    /// Length of one affine coordinate in bytes.
    public var coordinateLength: Int {
        switch self {
        case .p256: 32
        case .p384: 48
        case .p521: 66
        }
    }

    var openSSLName: String {
        switch self {
        case .p256: "prime256v1"
        case .p384: "secp384r1"
        case .p521: "secp521r1"
        }
    }

    init?(openSSLName: String) {
        switch openSSLName {
        case "prime256v1", "P-256": self = .p256
        case "secp384r1", "P-384": self = .p384
        case "secp521r1", "P-521": self = .p521
        default: return nil
        }
    }
}
