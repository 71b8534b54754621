import CryptoCore
import Foundation

/// A stand-in for the FIDO Metadata Service: a root, an intermediate and a signing leaf built with
/// `CertificateBuilder`, which sign metadata BLOBs (compact JWS, ES256 with raw r‖s, x5c = leaf, intermediate).
public struct MetadataBLOBSigner: Sendable {
    public let root: X509Certificate
    public let intermediate: X509Certificate
    public let leaf: X509Certificate
    private let leafKey: PrivateKey

    /// A new hierarchy valid from a year before `time` until two years after it.
    public static func make(at time: Date, rootName: String = "Passkeyd Test Metadata Root") throws -> MetadataBLOBSigner {
        let year: TimeInterval = 365 * 86_400
        let rootKey = try PrivateKey.generateEC(.p256)
        let intermediateKey = try PrivateKey.generateEC(.p256)
        let leafKey = try PrivateKey.generateEC(.p256)
        let rootSubject: [CertificateBuilder.NameAttribute] = [.init("O", "Passkeyd Test Alliance"), .init("CN", rootName)]
        let intermediateSubject: [CertificateBuilder.NameAttribute] = [
            .init("O", "Passkeyd Test Alliance"), .init("CN", "Passkeyd Test Metadata CA"),
        ]
        let root = try CertificateBuilder(
            subject: rootSubject,
            notBefore: time.addingTimeInterval(-year),
            notAfter: time.addingTimeInterval(2 * year),
            serialNumber: 1,
            certificateAuthority: true
        ).build(subjectKey: try rootKey.publicKey(), issuerKey: rootKey)
        let intermediate = try CertificateBuilder(
            subject: intermediateSubject,
            issuer: rootSubject,
            notBefore: time.addingTimeInterval(-year),
            notAfter: time.addingTimeInterval(2 * year),
            serialNumber: 2,
            certificateAuthority: true
        ).build(subjectKey: try intermediateKey.publicKey(), issuerKey: rootKey)
        let leaf = try CertificateBuilder(
            subject: [.init("O", "Passkeyd Test Alliance"), .init("CN", "mds.example.test")],
            issuer: intermediateSubject,
            notBefore: time.addingTimeInterval(-year),
            notAfter: time.addingTimeInterval(2 * year),
            serialNumber: 3,
            certificateAuthority: false
        ).build(subjectKey: try leafKey.publicKey(), issuerKey: intermediateKey)
        return MetadataBLOBSigner(root: root, intermediate: intermediate, leaf: leaf, leafKey: leafKey)
    }

    /// The compact JWS of `payload` (JSON bytes), signed with ES256 by the leaf.
    public func sign(payload: [UInt8]) throws -> String {
        let header = try JSONSerialization.data(
            withJSONObject: [
                "alg": "ES256", "typ": "JWT",
                "x5c": [leaf, intermediate].map { Data($0.der).base64EncodedString() },
            ],
            options: [.sortedKeys]
        )
        let signingInput = Base64URL.encode(Array(header)) + "." + Base64URL.encode(payload)
        let der = try leafKey.sign(Array(signingInput.utf8), algorithm: .ecdsaSHA256)
        return signingInput + "." + Base64URL.encode(try Self.rawSignature(der))
    }

    /// The JSON of a BLOB payload.
    public static func payload(nextUpdate: String, entries: [[String: Any]], number: Int = 42) throws -> [UInt8] {
        Array(
            try JSONSerialization.data(
                withJSONObject: [
                    "legalHeader": "Test metadata; no legal meaning.", "no": number, "nextUpdate": nextUpdate, "entries": entries,
                ],
                options: [.sortedKeys]
            )
        )
    }

    /// One payload entry: an AAGUID or key identifiers, a statement naming `description` and `roots`, status reports
    /// as (status, effectiveDate) pairs.
    public static func entry(
        aaguid: String? = nil,
        keyIdentifiers: [String] = [],
        description: String,
        roots: [X509Certificate],
        statuses: [(String, String)] = [("FIDO_CERTIFIED", "2024-01-01")]
    ) -> [String: Any] {
        var entry: [String: Any] = [
            "metadataStatement": [
                "description": description, "attestationTypes": ["basic_full"],
                "attestationRootCertificates": roots.map { Data($0.der).base64EncodedString() },
            ] as [String: Any],
            "statusReports": statuses.map { ["status": $0.0, "effectiveDate": $0.1] },
            "timeOfLastStatusChange": "2024-01-01",
        ]
        if let aaguid { entry["aaguid"] = aaguid }
        if !keyIdentifiers.isEmpty { entry["attestationCertificateKeyIdentifiers"] = keyIdentifiers }
        return entry
    }

    /// A DER `ECDSA-Sig-Value` (read with CryptoCore's `ASN1Element`) as the fixed-length `r || s` of JOSE (P-256: 32 bytes each).
    private static func rawSignature(_ der: [UInt8]) throws -> [UInt8] {
        try ASN1Element.single(der).children().flatMap { integer in
            let value = integer.contents.drop { $0 == 0 }
            return [UInt8](repeating: 0, count: 32 - value.count) + value
        }
    }
}
