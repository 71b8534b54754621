import CBOR
import CryptoCore
import WebAuthnCore

/// A credential held by `SoftwareAuthenticator`: its key pair, ID and owner, generated with OpenSSL.
public struct SoftwareCredential: Sendable {
    /// The algorithms the software authenticator can create credentials for.
    public static let supportedAlgorithms: [COSEAlgorithm] = [.es256, .es384, .es512, .eddsa, .rs256, .ps256]

    public let algorithm: COSEAlgorithm
    public let privateKey: PrivateKey
    public let publicKey: PublicKey
    public let id: [UInt8]
    public let userHandle: [UInt8]

    /// A credential made earlier, from its parts (its public key is derived from `privateKey`).
    public init(algorithm: COSEAlgorithm, privateKey: PrivateKey, id: [UInt8], userHandle: [UInt8]) throws {
        self.init(algorithm: algorithm, privateKey: privateKey, publicKey: try privateKey.publicKey(), id: id, userHandle: userHandle)
    }

    private init(algorithm: COSEAlgorithm, privateKey: PrivateKey, publicKey: PublicKey, id: [UInt8], userHandle: [UInt8]) {
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.publicKey = publicKey
        self.id = id
        self.userHandle = userHandle
    }

    /// A new credential with a random ID of `idLength` bytes, owned by `userHandle` (random 32 bytes when nil).
    public static func generate(_ algorithm: COSEAlgorithm, idLength: Int = 32, userHandle: [UInt8]? = nil) throws -> SoftwareCredential {
        let privateKey: PrivateKey
        switch algorithm {
        case .es256: privateKey = try PrivateKey.generateEC(.p256)
        case .es384: privateKey = try PrivateKey.generateEC(.p384)
        case .es512: privateKey = try PrivateKey.generateEC(.p521)
        case .eddsa, .ed25519: privateKey = try PrivateKey.generateEdwards(.ed25519)
        case .rs256, .ps256: privateKey = try PrivateKey.generateRSA(bits: 2048)
        default: throw CryptoError(.unsupported, "the software authenticator cannot create \(algorithm) credentials")
        }
        let random = SystemRandom()
        return SoftwareCredential(
            algorithm: algorithm,
            privateKey: privateKey,
            publicKey: try privateKey.publicKey(),
            id: random.bytes(count: idLength),
            userHandle: userHandle ?? random.bytes(count: 32)
        )
    }

    /// The credential public key as a COSE_Key map (RFC 9053), in the label order authenticators use.
    public func coseKeyValue() throws -> CBORValue {
        var entries: [(Int64, CBORValue)]
        switch publicKey.type {
        case .ec:
            let coordinates = try publicKey.ecCoordinates()
            let curve: Int64 =
                switch publicKey.curve {
                case .p256: 1
                case .p384: 2
                default: 3
                }
            entries = [
                (1, CBORValue(2)), (3, CBORValue(Int64(algorithm.rawValue))), (-1, CBORValue(curve)),
                (-2, .bytes(coordinates.x)), (-3, .bytes(coordinates.y)),
            ]
        case .ed25519, .ed448:
            entries = [
                (1, CBORValue(1)), (3, CBORValue(Int64(algorithm.rawValue))), (-1, CBORValue(publicKey.type == .ed25519 ? 6 : 7)),
                (-2, .bytes(try publicKey.rawEdwardsKey())),
            ]
        case .rsa:
            let components = try publicKey.rsaComponents()
            entries = [
                (1, CBORValue(3)), (3, CBORValue(Int64(algorithm.rawValue))), (-1, .bytes(components.modulus)), (-2, .bytes(components.exponent)),
            ]
        }
        return .map(entries.map { CBORMapEntry(key: CBORValue($0.0), value: $0.1) })
    }

    /// The encoded COSE_Key, as it appears in attested credential data.
    public func coseKey() throws -> [UInt8] {
        CBOREncoder.encode(try coseKeyValue())
    }

    /// A signature with the credential's algorithm (ECDSA in DER, as WebAuthn sends it).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        try privateKey.sign(message, algorithm: algorithm.signatureAlgorithm)
    }

    /// The credential record a server would hold after registering this credential.
    public func storedCredential(signCount: UInt32 = 0, backupEligible: Bool? = nil) throws -> StoredCredential {
        StoredCredential(
            id: id,
            publicKey: try COSEKey(bytes: try coseKey()),
            signCount: signCount,
            userHandle: userHandle,
            backupEligible: backupEligible
        )
    }
}
