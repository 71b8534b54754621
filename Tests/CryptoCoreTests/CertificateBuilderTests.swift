import CryptoCore
import Foundation
import Testing

@Suite("CertificateBuilder: X.509 certificates built with OpenSSL")
struct CertificateBuilderTests {
    static let start = Date(timeIntervalSince1970: 1_780_000_000)
    static let day: TimeInterval = 86_400

    @Test func fieldsReadBackThroughX509Certificate() throws {
        let key = try PrivateKey.generateEC(.p256)
        let issuerKey = try PrivateKey.generateEC(.p384)
        let builder = CertificateBuilder(
            subject: [.init("C", "SE"), .init("O", "Vendor AB"), .init("2.5.4.11", "Authenticator Attestation"), .init("CN", "Batch 7")],
            issuer: [.init("CN", "Vendor Root")],
            notBefore: Self.start,
            notAfter: Self.start.addingTimeInterval(30 * Self.day),
            serialNumber: 4242,
            certificateAuthority: false,
            extensions: [.init(oid: "1.3.6.1.4.1.45724.1.1.4", critical: false, value: [0x04, 0x02, 0xAB, 0xCD])]
        )
        let certificate = try builder.build(subjectKey: try key.publicKey(), issuerKey: issuerKey)

        #expect(certificate.version == 3)
        #expect(certificate.subject.map(\.oid) == ["2.5.4.6", "2.5.4.10", "2.5.4.11", "2.5.4.3"])
        #expect(certificate.subject.map(\.value) == ["SE", "Vendor AB", "Authenticator Attestation", "Batch 7"])
        #expect(certificate.issuer.map(\.value) == ["Vendor Root"])
        #expect(certificate.notBefore == Self.start)
        #expect(certificate.notAfter == Self.start.addingTimeInterval(30 * Self.day))
        #expect(certificate.basicConstraintsCA == false)
        #expect(certificate.isSelfIssued == false)
        #expect(try certificate.publicKey().matches(try key.publicKey()))
        let aaguid = try #require(certificate.extensionValue("1.3.6.1.4.1.45724.1.1.4"))
        #expect(aaguid.critical == false)
        #expect(aaguid.value == [0x04, 0x02, 0xAB, 0xCD])
    }

    @Test(arguments: [1, 2, 3])
    func versionIsWrittenAsGiven(version: Int) throws {
        let key = try PrivateKey.generateEC(.p256)
        let builder = CertificateBuilder(
            subject: [.init("CN", "Version \(version)")],
            notBefore: Self.start,
            notAfter: Self.start.addingTimeInterval(Self.day),
            version: version
        )
        let certificate = try builder.build(subjectKey: try key.publicKey(), issuerKey: key)
        #expect(certificate.version == version)
        #expect(certificate.isSelfIssued)
    }

    @Test(arguments: [true, false])
    func basicConstraintsCAIsWrittenAsGiven(certificateAuthority: Bool) throws {
        let key = try PrivateKey.generateEdwards(.ed25519)
        let builder = CertificateBuilder(
            subject: [.init("CN", "Edwards")],
            notBefore: Self.start,
            notAfter: Self.start.addingTimeInterval(Self.day),
            certificateAuthority: certificateAuthority
        )
        let certificate = try builder.build(subjectKey: try key.publicKey(), issuerKey: key)
        #expect(certificate.basicConstraintsCA == certificateAuthority)
        #expect(certificate.extensionValue("2.5.29.19")?.critical == true)
    }

    @Test func basicConstraintsCanBeLeftOut() throws {
        let key = try PrivateKey.generateRSA(bits: 2048)
        let builder = CertificateBuilder(
            subject: [.init("CN", "No constraints")],
            notBefore: Self.start,
            notAfter: Self.start.addingTimeInterval(Self.day),
            certificateAuthority: nil
        )
        let certificate = try builder.build(subjectKey: try key.publicKey(), issuerKey: key)
        #expect(certificate.basicConstraintsCA == nil)
    }

    @Test func malformedCountryIsWrittenAsGiven() throws {
        let key = try PrivateKey.generateEC(.p256)
        let builder = CertificateBuilder(
            subject: [.init("C", "SWE")],
            notBefore: Self.start,
            notAfter: Self.start.addingTimeInterval(Self.day)
        )
        let certificate = try builder.build(subjectKey: try key.publicKey(), issuerKey: key)
        #expect(certificate.subjectValues("2.5.4.6") == ["SWE"])
    }

    @Test func unknownAttributeNameIsRefused() throws {
        let key = try PrivateKey.generateEC(.p256)
        let builder = CertificateBuilder(
            subject: [.init("NotAnAttribute", "x")],
            notBefore: Self.start,
            notAfter: Self.start.addingTimeInterval(Self.day)
        )
        #expect(throws: CryptoError.self) { try builder.build(subjectKey: try key.publicKey(), issuerKey: key) }
    }

    @Test func threeLevelChainVerifiesOnlyInsideValidityAndAtItsRoot() throws {
        let chain = try ThreeLevelChain()
        let inside = Self.start.addingTimeInterval(10 * Self.day)
        let path = try CertificateChainVerifier(trustAnchors: [chain.root])
            .verify(leaf: chain.leaf, intermediates: [chain.intermediate], at: inside)
        #expect(path.map(\.der) == [chain.leaf.der, chain.intermediate.der, chain.root.der])

        let after = Self.start.addingTimeInterval(40 * Self.day)
        #expect(
            Self.code {
                _ = try CertificateChainVerifier(trustAnchors: [chain.root]).verify(leaf: chain.leaf, intermediates: [chain.intermediate], at: after)
            } == .certificateExpired
        )

        let otherRoot = try ThreeLevelChain().root
        #expect(
            Self.code {
                _ = try CertificateChainVerifier(trustAnchors: [otherRoot]).verify(leaf: chain.leaf, intermediates: [chain.intermediate], at: inside)
            } == .chainUntrusted
        )
    }

    @Test func chainWithoutItsIntermediateIsUntrusted() throws {
        let chain = try ThreeLevelChain()
        #expect(
            Self.code {
                _ = try CertificateChainVerifier(trustAnchors: [chain.root])
                    .verify(leaf: chain.leaf, intermediates: [], at: Self.start.addingTimeInterval(Self.day))
            } == .chainUntrusted
        )
    }

    /// The CryptoError code `body` fails with; nil when it succeeds. Any other error is recorded as an issue.
    static func code(_ body: () throws -> Void) -> CryptoError.Code? {
        do {
            try body()
            return nil
        } catch let error as CryptoError {
            return error.code
        } catch {
            Issue.record("\(error) is not a CryptoError")
            return nil
        }
    }
}
