import CryptoCore
import Foundation
import Testing
import WebAuthnCore

/// The roots shipped in TrustAnchors/: each parses, is a self-signed CA, and is listed in TrustAnchors/README.md
/// with its exact SHA-256 fingerprint; the authenticator name list parses.
@Suite("Shipped trust anchors")
struct TrustAnchorFolderTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("TrustAnchors")

    static var files: [String] {
        let top = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let metadata = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("metadata").path)) ?? []
        return (top.filter { $0.hasSuffix(".pem") } + metadata.filter { $0.hasSuffix(".pem") }.map { "metadata/" + $0 }).sorted()
    }

    static func certificate(_ file: String) throws -> X509Certificate {
        let certificates = try X509Certificate.certificates(pem: try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        #expect(certificates.count == 1, "one root per file")
        return certificates[0]
    }

    @Test func folderShipsTheExpectedRoots() {
        #expect(Self.files.count >= 14)
        for name in [
            "apple-webauthn-root-ca.pem", "yubico-u2f-root-ca-serial-457200631.pem", "microsoft-tpm-root-certificate-authority-2014.pem",
            "google-hardware-attestation-root-1.pem", "metadata/globalsign-root-ca-r3.pem",
        ] {
            #expect(Self.files.contains(name), "\(name) is shipped")
        }
    }

    @Test(arguments: TrustAnchorFolderTests.files)
    func rootIsASelfSignedCertificateAuthority(file: String) throws {
        let root = try Self.certificate(file)
        #expect(root.isSelfIssued)
        #expect(root.basicConstraintsCA == true)
        let notBefore = try #require(root.notBefore)
        // Self-signed: the certificate verifies as its own anchor, its signature included.
        let path = try CertificateChainVerifier(trustAnchors: [root]).verify(leaf: root, intermediates: [], at: notBefore.addingTimeInterval(60))
        #expect(path.count == 1)
    }

    @Test(arguments: TrustAnchorFolderTests.files)
    func readmeListsTheExactFingerprint(file: String) throws {
        let readme = try String(contentsOf: Self.folder.appendingPathComponent("README.md"), encoding: .utf8)
        let hex = try Self.certificate(file).sha256Fingerprint.uppercased()
        let colons = stride(from: 0, to: hex.count, by: 2).map { offset in
            String(hex[hex.index(hex.startIndex, offsetBy: offset)..<hex.index(hex.startIndex, offsetBy: offset + 2)])
        }.joined(separator: ":")
        let row = try #require(readme.split(separator: "\n").first { $0.hasPrefix("| `\(file)`") }, "README has a row for \(file)")
        #expect(row.contains("`\(colons)`"))
    }

    @Test func keyIdentifierIsRFC5280MethodOne() throws {
        // These roots carry a Subject Key Identifier computed by method 1, so it must equal the computed identifier.
        for file in ["apple-webauthn-root-ca.pem", "microsoft-tpm-root-certificate-authority-2014.pem", "google-hardware-attestation-root-2.pem"] {
            let root = try Self.certificate(file)
            let extensionValue = try #require(root.extensionValue("2.5.29.14")).value
            #expect(root.subjectPublicKeyIdentifier == Hex.encode(extensionValue.dropFirst(2)))
        }
    }

    @Test func nameListParses() throws {
        let names = try AuthenticatorNameList(json: Array(try Data(contentsOf: Self.folder.appendingPathComponent("aaguid-names.json"))))
        #expect(names.count >= 30)
        let iCloudKeychain: [UInt8] = [0xFB, 0xFC, 0x30, 0x07, 0x15, 0x4E, 0x4E, 0xCC, 0x8C, 0x0B, 0x6E, 0x02, 0x05, 0x57, 0xD7, 0xBD]
        #expect(names.name(for: iCloudKeychain) == "Apple Passwords")
    }
}
