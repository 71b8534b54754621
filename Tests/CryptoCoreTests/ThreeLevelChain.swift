import CryptoCore
import Foundation

/// Root (EC P-384, 60 days) → intermediate (EC P-256, 45 days) → leaf (Ed25519, 30 days), all from `CertificateBuilderTests.start`.
struct ThreeLevelChain {
    let root: X509Certificate
    let intermediate: X509Certificate
    let leaf: X509Certificate

    init() throws {
        let start = CertificateBuilderTests.start
        let day = CertificateBuilderTests.day
        let rootKey = try PrivateKey.generateEC(.p384)
        let intermediateKey = try PrivateKey.generateEC(.p256)
        let leafKey = try PrivateKey.generateEdwards(.ed25519)
        let rootName: [CertificateBuilder.NameAttribute] = [.init("O", "Test"), .init("CN", "Root")]
        let intermediateName: [CertificateBuilder.NameAttribute] = [.init("O", "Test"), .init("CN", "Intermediate")]
        root = try CertificateBuilder(
            subject: rootName,
            notBefore: start,
            notAfter: start.addingTimeInterval(60 * day),
            certificateAuthority: true
        ).build(subjectKey: try rootKey.publicKey(), issuerKey: rootKey)
        intermediate = try CertificateBuilder(
            subject: intermediateName,
            issuer: rootName,
            notBefore: start,
            notAfter: start.addingTimeInterval(45 * day),
            serialNumber: 2,
            certificateAuthority: true
        ).build(subjectKey: try intermediateKey.publicKey(), issuerKey: rootKey)
        leaf = try CertificateBuilder(
            subject: [.init("O", "Test"), .init("CN", "Leaf")],
            issuer: intermediateName,
            notBefore: start,
            notAfter: start.addingTimeInterval(30 * day),
            serialNumber: 3
        ).build(subjectKey: try leafKey.publicKey(), issuerKey: intermediateKey)
    }
}
