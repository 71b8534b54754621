import CryptoCore

/// The TPMT_PUBLIC structure of a TPM-resident key ([TPMv2-Part2] §12.2.4), as carried in the `tpm`
/// attestation statement's `pubArea`. Only RSA and ECC keys are read; every other type fails.
struct TPMTPublic {
    /// TPMU_PUBLIC_PARMS, reduced to what identifies the public key.
    enum Parameters: Equatable {
        /// TPMS_RSA_PARMS: modulus size and public exponent (0 means the default, 2^16 + 1).
        case rsa(keyBits: UInt16, exponent: UInt32)
        /// TPMS_ECC_PARMS: the TPM_ECC_CURVE identifier.
        case ecc(curveID: UInt16)
    }

    /// TPMU_PUBLIC_ID: the public key itself.
    enum Unique: Equatable {
        /// TPM2B_PUBLIC_KEY_RSA: the modulus.
        case rsa(modulus: [UInt8])
        /// TPMS_ECC_POINT: the affine coordinates.
        case ecc(x: [UInt8], y: [UInt8])
    }

    /// TPM_ALG_RSA.
    static let rsaType: UInt16 = 0x0001
    /// TPM_ALG_ECC.
    static let eccType: UInt16 = 0x0023
    /// TPM_ALG_NULL, the "no algorithm" selector of symmetric, scheme and kdf.
    static let nullAlgorithm: UInt16 = 0x0010
    /// TPM_ALG_ECDAA, the one signing scheme whose details carry a count after the hash.
    static let ecdaaScheme: UInt16 = 0x001A

    let type: UInt16
    let nameAlgorithm: UInt16
    let objectAttributes: UInt32
    let authPolicy: [UInt8]
    let parameters: Parameters
    let unique: Unique
    /// The encoding the structure was read from, which its Name is computed over.
    let bytes: [UInt8]

    /// Reads a complete TPMT_PUBLIC; trailing bytes fail.
    ///
    /// A scheme other than TPM_ALG_NULL is followed by its details (the hash algorithm) in [TPMv2-Part2], but some
    /// WebAuthn authenticators (java-webauthn-server's TPM test authenticator) write the bare scheme identifier, as
    /// most relying parties read it. The structure is read the TPM way first and, when that does not consume it
    /// exactly, with bare scheme identifiers; each reading must account for every byte.
    init(bytes: [UInt8]) throws(WebAuthnError) {
        do {
            self = try Self(bytes: bytes, schemesHaveDetails: true)
        } catch {
            guard let lenient = try? Self(bytes: bytes, schemesHaveDetails: false) else { throw error }
            self = lenient
        }
    }

    private init(bytes: [UInt8], schemesHaveDetails: Bool) throws(WebAuthnError) {
        var reader = TPMByteReader(bytes, structure: "pubArea")
        type = try reader.readUInt16()
        nameAlgorithm = try reader.readUInt16()
        objectAttributes = try reader.readUInt32()
        authPolicy = try reader.readSizedBuffer()
        switch type {
        case Self.rsaType:
            try Self.skipSymmetricDefinition(&reader)
            try Self.skipScheme(&reader, withDetails: schemesHaveDetails)
            let keyBits = try reader.readUInt16()
            let exponent = try reader.readUInt32()
            parameters = .rsa(keyBits: keyBits, exponent: exponent)
            unique = .rsa(modulus: try reader.readSizedBuffer())
        case Self.eccType:
            try Self.skipSymmetricDefinition(&reader)
            try Self.skipScheme(&reader, withDetails: schemesHaveDetails)
            let curveID = try reader.readUInt16()
            try Self.skipScheme(&reader, withDetails: schemesHaveDetails)
            parameters = .ecc(curveID: curveID)
            let x = try reader.readSizedBuffer()
            let y = try reader.readSizedBuffer()
            unique = .ecc(x: x, y: y)
        default:
            throw WebAuthnError(.tpmUnsupportedKeyType, "pubArea type \(type) is neither TPM_ALG_RSA nor TPM_ALG_ECC")
        }
        try reader.finish()
        self.bytes = bytes
    }

    /// The digest of a TPM_ALG_ID hash algorithm (SHA-1, SHA-256, SHA-384, SHA-512), nil for any other.
    static func digest(forAlgorithm identifier: UInt16) -> DigestAlgorithm? {
        switch identifier {
        case 0x0004: .sha1
        case 0x000B: .sha256
        case 0x000C: .sha384
        case 0x000D: .sha512
        default: nil
        }
    }

    /// The NIST curve of a TPM_ECC_CURVE identifier, nil for any other.
    static func curve(forIdentifier identifier: UInt16) -> EllipticCurve? {
        switch identifier {
        case 0x0003: .p256
        case 0x0004: .p384
        case 0x0005: .p521
        default: nil
        }
    }

    /// TPMT_SYM_DEF_OBJECT: an algorithm, then key size and mode unless the algorithm is TPM_ALG_NULL.
    private static func skipSymmetricDefinition(_ reader: inout TPMByteReader) throws(WebAuthnError) {
        guard try reader.readUInt16() != nullAlgorithm else { return }
        _ = try reader.readUInt16()
        _ = try reader.readUInt16()
    }

    /// TPMT_RSA_SCHEME, TPMT_ECC_SCHEME and TPMT_KDF_SCHEME: a scheme, then (`withDetails`) its hash algorithm
    /// unless the scheme is TPM_ALG_NULL (and for ECDAA a commit count as well).
    private static func skipScheme(_ reader: inout TPMByteReader, withDetails: Bool) throws(WebAuthnError) {
        let scheme = try reader.readUInt16()
        guard withDetails, scheme != nullAlgorithm else { return }
        _ = try reader.readUInt16()
        if scheme == ecdaaScheme { _ = try reader.readUInt16() }
    }
}
