import CryptoCore
import Foundation
import Testing

/// SelfSignedCertificate and TLSServerContext, checked with the openssl command-line tool.
struct TLSMaterialTests {
    @Test func ensureWritesPEMWithPrivateKeyMode0600AndReusesFiles() throws {
        let folder = makeTemporaryFolder() + "/nested/tls"
        let certificate = folder + "/cert.pem"
        let key = folder + "/key.pem"
        try SelfSignedCertificate.ensure(
            certificateFile: certificate,
            privateKeyFile: key,
            hostNames: ["passkey.example", "127.0.0.1", "::1"],
            now: Date()
        )
        let keyMode = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        let firstCertificate = try Data(contentsOf: URL(fileURLWithPath: certificate))
        let firstKey = try Data(contentsOf: URL(fileURLWithPath: key))
        #expect(String(decoding: firstCertificate, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(String(decoding: firstKey, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))

        try SelfSignedCertificate.ensure(certificateFile: certificate, privateKeyFile: key, hostNames: ["other.example"], now: Date())
        #expect(try Data(contentsOf: URL(fileURLWithPath: certificate)) == firstCertificate)
        #expect(try Data(contentsOf: URL(fileURLWithPath: key)) == firstKey)
    }

    @Test func generatedCertificateHasNamesVersionAndValidity() throws {
        let folder = makeTemporaryFolder()
        let certificate = folder + "/cert.pem"
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try SelfSignedCertificate.ensure(
            certificateFile: certificate,
            privateKeyFile: folder + "/key.pem",
            hostNames: ["passkey.example", "127.0.0.1"],
            now: now
        )
        let text = try run("/usr/bin/openssl", ["x509", "-in", certificate, "-noout", "-text"]).output
        #expect(text.contains("Version: 3 (0x2)"))
        #expect(text.contains("Subject: CN = passkey.example"))
        #expect(text.contains("Issuer: CN = passkey.example"))
        #expect(text.contains("DNS:passkey.example, IP Address:127.0.0.1"))
        #expect(text.contains("ASN1 OID: prime256v1"))
        #expect(text.contains("Not Before: Jan 15 08:00:00 2027 GMT"))
        #expect(text.contains("Not After : Jan 15 08:00:00 2028 GMT"))
        #expect(text.contains("TLS Web Server Authentication"))
        #expect(text.contains("CA:FALSE"))
    }

    @Test func serialsDiffer() throws {
        let serials = try (0..<2).map { _ in
            let folder = makeTemporaryFolder()
            try SelfSignedCertificate.ensure(
                certificateFile: folder + "/c.pem",
                privateKeyFile: folder + "/k.pem",
                hostNames: ["localhost"],
                now: Date()
            )
            return try run("/usr/bin/openssl", ["x509", "-in", folder + "/c.pem", "-noout", "-serial"]).output
        }
        #expect(serials[0] != serials[1])
    }

    @Test func contextLoadsGeneratedMaterial() throws {
        let files = try makeCertificate()
        #expect(throws: Never.self) { try TLSServerContext(certificateChainFile: files.certificate, privateKeyFile: files.key) }
    }

    @Test func missingFilesHaveTheirCodes() throws {
        let files = try makeCertificate()
        let missing = makeTemporaryFolder() + "/missing.pem"
        #expect(throws: CryptoError.self) { try TLSServerContext(certificateChainFile: missing, privateKeyFile: files.key) }
        do {
            _ = try TLSServerContext(certificateChainFile: missing, privateKeyFile: files.key)
        } catch {
            #expect(error.code == .certificateUnreadable)
        }
        do {
            _ = try TLSServerContext(certificateChainFile: files.certificate, privateKeyFile: missing)
            Issue.record("expected tls.privateKeyUnreadable")
        } catch {
            #expect(error.code == .privateKeyUnreadable)
        }
        do {
            _ = try TLSServerContext(certificateChainFile: files.certificate, privateKeyFile: files.certificate)
            Issue.record("expected tls.privateKeyUnreadable")
        } catch {
            #expect(error.code == .privateKeyUnreadable)
        }
    }

    @Test func mismatchedKeyIsRejected() throws {
        let first = try makeCertificate()
        let second = try makeCertificate()
        do {
            _ = try TLSServerContext(certificateChainFile: first.certificate, privateKeyFile: second.key)
            Issue.record("expected tls.keyMismatch")
        } catch {
            #expect(error.code == .keyMismatch)
            #expect(error.description.hasPrefix("tls.keyMismatch: "))
        }
    }
}
