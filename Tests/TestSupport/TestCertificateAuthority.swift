import CryptoCore
import Foundation

/// A throwaway certificate authority for the outbound client's tests (HTTPClient, check-domain), built with
/// CryptoCore's `CertificateBuilder`: an EC P-256 root (`ca.pem`) and server certificates it issues for chosen names
/// and validity, written as PEM files in a fresh temporary folder. Nothing of it is in any system trust store.
public struct TestCertificateAuthority {
    public let folder: String
    /// The root certificate's PEM file: the `caFile` of a client that trusts this authority.
    public let certificateFile: String
    private let key: PrivateKey
    private let name: [CertificateBuilder.NameAttribute]

    public init(commonName: String = "passkeyd test CA") throws {
        name = [CertificateBuilder.NameAttribute("CN", commonName)]
        folder = NSTemporaryDirectory() + "passkeyd-test-ca-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        key = try PrivateKey.generateEC(.p256)
        let now = Date()
        let root = try CertificateBuilder(
            subject: name,
            notBefore: now.addingTimeInterval(-3600),
            notAfter: now.addingTimeInterval(86_400),
            serialNumber: 1,
            certificateAuthority: true
        ).build(subjectKey: try key.publicKey(), issuerKey: key)
        certificateFile = folder + "/ca.pem"
        try Self.pem(root).write(toFile: certificateFile, atomically: true, encoding: .utf8)
    }

    /// A server certificate for `names` (DNS names and IP addresses in the subjectAltName) valid from `notBefore` to
    /// `notAfter`; returns the chain file (leaf, then this root) and the key file for `TLSServerContext`.
    public func issue(
        names: [String],
        notBefore: Date = Date().addingTimeInterval(-3600),
        notAfter: Date = Date().addingTimeInterval(86_400),
        serialNumber: Int = 2
    ) throws -> (chain: String, key: String) {
        let leafKey = try PrivateKey.generateEC(.p256)
        let leaf = try CertificateBuilder(
            subject: [CertificateBuilder.NameAttribute("CN", names.first ?? "server")],
            issuer: name,
            notBefore: notBefore,
            notAfter: notAfter,
            serialNumber: serialNumber,
            certificateAuthority: false,
            extensions: [CertificateBuilder.Extension(oid: "2.5.29.17", critical: false, value: Self.subjectAlternativeNames(names))]
        ).build(subjectKey: try leafKey.publicKey(), issuerKey: key)
        let stem = folder + "/server-\(serialNumber)-\(UUID().uuidString)"
        let root = try String(contentsOfFile: certificateFile, encoding: .utf8)
        try (Self.pem(leaf) + root).write(toFile: stem + ".chain.pem", atomically: true, encoding: .utf8)
        try leafKey.pem().write(toFile: stem + ".key.pem", atomically: true, encoding: .utf8)
        return (stem + ".chain.pem", stem + ".key.pem")
    }

    /// PEM armour around a certificate's DER.
    static func pem(_ certificate: X509Certificate) -> String {
        "-----BEGIN CERTIFICATE-----\n" + Data(certificate.der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            + "\n-----END CERTIFICATE-----\n"
    }

    /// The DER of a GeneralNames SEQUENCE: dNSName [2] for names, iPAddress [7] for IPv4 literals.
    static func subjectAlternativeNames(_ names: [String]) -> [UInt8] {
        var content: [UInt8] = []
        for name in names {
            let octets = name.split(separator: ".").compactMap { UInt8($0) }
            if octets.count == 4 && name.allSatisfy({ $0.isNumber || $0 == "." }) {
                content += derElement(0x87, octets)
            } else {
                content += derElement(0x82, Array(name.utf8))
            }
        }
        return derElement(0x30, content)
    }

    /// Tag, definite length (short or long form), contents.
    static func derElement(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        let count = contents.count
        let length: [UInt8] = count < 128 ? [UInt8(count)] : count < 256 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
        return [tag] + length + contents
    }
}
