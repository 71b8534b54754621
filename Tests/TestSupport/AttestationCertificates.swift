import CryptoCore
import Foundation
import WebAuthnCore

/// A batch attestation key and its certificate chain (root → intermediate → leaf), built with
/// `CertificateBuilder` to meet WebAuthn §8.2.1 unless a test changes the leaf.
public struct AttestationCertificates: Sendable {
    /// The OID of id-fido-gen-ce-aaguid.
    public static let aaguidExtensionOID = "1.3.6.1.4.1.45724.1.1.4"

    /// The leaf certificate's private key, which signs attestation statements.
    public let signingKey: PrivateKey
    /// The intermediate CA's private key, which issues leaves (and Apple's per-credential certificates).
    public let intermediateKey: PrivateKey
    /// The algorithm the statement's `alg` names and the signing key signs with.
    public let algorithm: COSEAlgorithm
    public let leaf: X509Certificate
    public let intermediate: X509Certificate
    public let root: X509Certificate

    /// `x5c` for packed: the leaf, then the intermediate.
    public var chain: [X509Certificate] { [leaf, intermediate] }

    /// The subject §8.2.1 requires of a packed attestation certificate.
    package static let conformingSubject: [CertificateBuilder.NameAttribute] = [
        .init("C", "SE"), .init("O", "Passkeyd Test Vendor AB"), .init("OU", "Authenticator Attestation"), .init("CN", "Passkeyd Test Batch 1"),
    ]

    /// The extension value of id-fido-gen-ce-aaguid: the AAGUID as a DER OCTET STRING.
    package static func aaguidExtension(_ aaguid: [UInt8], critical: Bool = false) -> CertificateBuilder.Extension {
        CertificateBuilder.Extension(oid: aaguidExtensionOID, critical: critical, value: [0x04, UInt8(aaguid.count)] + aaguid)
    }

    /// A new chain valid from a year before `time` (the leaf: a day before) until a year after it.
    /// `leafAlgorithm` picks the batch key (ES256, ES384, ES512, EdDSA, RS256 or PS256); `customizeLeaf`
    /// may change anything about the leaf before it is signed.
    package static func make(
        at time: Date,
        leafAlgorithm: COSEAlgorithm = .es256,
        aaguid: [UInt8]? = nil,
        customizeLeaf: (inout CertificateBuilder) -> Void = { _ in }
    ) throws -> AttestationCertificates {
        let year: TimeInterval = 365 * 86_400
        let rootKey = try PrivateKey.generateEC(.p256)
        let intermediateKey = try PrivateKey.generateEC(.p256)
        let leafKey = try SoftwareCredential.generate(leafAlgorithm, idLength: 1).privateKey
        let rootName: [CertificateBuilder.NameAttribute] = [.init("O", "Passkeyd Test Vendor AB"), .init("CN", "Passkeyd Test Root")]
        let root = try CertificateBuilder(
            subject: rootName,
            notBefore: time.addingTimeInterval(-year),
            notAfter: time.addingTimeInterval(10 * year),
            serialNumber: 1,
            certificateAuthority: true
        ).build(subjectKey: try rootKey.publicKey(), issuerKey: rootKey)
        let intermediate = try CertificateBuilder(
            subject: Self.intermediateName,
            issuer: rootName,
            notBefore: time.addingTimeInterval(-year),
            notAfter: time.addingTimeInterval(5 * year),
            serialNumber: 2,
            certificateAuthority: true
        ).build(subjectKey: try intermediateKey.publicKey(), issuerKey: rootKey)
        var leafBuilder = CertificateBuilder(
            subject: conformingSubject,
            issuer: Self.intermediateName,
            notBefore: time.addingTimeInterval(-86_400),
            notAfter: time.addingTimeInterval(year),
            serialNumber: 3,
            certificateAuthority: false,
            extensions: aaguid.map { [aaguidExtension($0)] } ?? []
        )
        customizeLeaf(&leafBuilder)
        let leaf = try leafBuilder.build(subjectKey: try leafKey.publicKey(), issuerKey: intermediateKey)
        return AttestationCertificates(
            signingKey: leafKey,
            intermediateKey: intermediateKey,
            algorithm: leafAlgorithm,
            leaf: leaf,
            intermediate: intermediate,
            root: root
        )
    }

    /// The subject of the intermediate CA.
    package static let intermediateName: [CertificateBuilder.NameAttribute] = [
        .init("O", "Passkeyd Test Vendor AB"), .init("CN", "Passkeyd Test Intermediate"),
    ]

    /// Apple's nonce extension (OID 1.2.840.113635.100.8.2): `SEQUENCE { [1] EXPLICIT OCTET STRING nonce }` for a 32-byte nonce.
    package static func appleNonceExtension(_ nonce: [UInt8]) -> CertificateBuilder.Extension {
        CertificateBuilder.Extension(oid: "1.2.840.113635.100.8.2", critical: false, value: [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + nonce)
    }

    /// A certificate for `key` issued by the intermediate, valid as long as the leaf, in the shape of Apple's
    /// per-credential certificates (CN, O = Apple Inc., ST), with `extensions`.
    package func credentialCertificate(for key: PublicKey, extensions: [CertificateBuilder.Extension]) throws -> X509Certificate {
        let notBefore = leaf.notBefore ?? Date(timeIntervalSince1970: 0)
        return try CertificateBuilder(
            subject: [.init("CN", "Passkeyd Test Credential"), .init("O", "Apple Inc."), .init("ST", "California")],
            issuer: Self.intermediateName,
            notBefore: notBefore,
            notAfter: leaf.notAfter ?? notBefore,
            serialNumber: 4,
            certificateAuthority: false,
            extensions: extensions
        ).build(subjectKey: key, issuerKey: intermediateKey)
    }
}
