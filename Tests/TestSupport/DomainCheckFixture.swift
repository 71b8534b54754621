import AssociatedDomains
import ConfigurationReading
import CryptoCore
import Foundation
import HTTPServer
import JSON
import OutboundHTTP

/// A domain publishing what passkeyd publishes for an `associatedDomains` block on https://localhost:PORT (certificate
/// from a test CA), Apple's CDN stand-in serving a copy of its apple-app-site-association, and the client and
/// arguments `check-domain` is run with. Tests break one thing at a time through `domain.answer(_:with:)` and
/// `cdn.answer(_:with:)`.
public final class DomainCheckFixture {
    public static let app = "ABCDE12345.com.example.app"
    /// 32 bytes 0x00…0x1F, as Google writes them, and their origin.
    public static let fingerprint = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
    public static let origin = "android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
    public static let otherFingerprint = String(repeating: "AB:", count: 31) + "AB"
    public static let android = "com.example.app:" + fingerprint
    public static let cdnPath = "/a/v1/localhost"

    static let associatedDomains = """
        {"webcredentials": {"apps": ["\(app)"]},
         "applinks": {"details": [{"appIDs": ["\(app)"], "components": [{"/": "/open/*"}]}]},
         "android": [{"package": "com.example.app", "sha256CertFingerprints": ["\(fingerprint)"]}],
         "relatedOrigins": ["https://example.co.uk"],
         "passkeyEndpoints": {"enroll": "https://localhost/account/passkeys/new", "manage": "https://localhost/account/passkeys"}}
        """

    public let authority: TestCertificateAuthority
    public let domain: DomainStandIn
    public let cdn: DomainStandIn
    /// The bytes passkeyd publishes, which the CDN stand-in serves as its copy.
    public let association: [UInt8]

    public init() throws {
        authority = try TestCertificateAuthority()
        let certificate = try authority.issue(names: ["localhost", "127.0.0.1"])
        let block = try JSONDecoder().decode(JSONValue.self, from: Data(Self.associatedDomains.utf8))
        let files = try WellKnownFiles(AssociatedDomains(ConfigurationReader(block, path: "associatedDomains")), loadedAt: Date())
        domain = try DomainStandIn(certificate: certificate, files: files)
        association = domain.handle(HTTPRequest(method: "GET", path: "/.well-known/apple-app-site-association")).body
        cdn = try DomainStandIn(certificate: certificate, answers: [Self.cdnPath: .json(status: 200, association)])
    }

    public var cdnURL: String { cdn.origin + Self.cdnPath }

    /// The command line's arguments for the domain, its apps and the CDN stand-in.
    public var arguments: [String] {
        [domain.origin, "--app", Self.app, "--android", Self.android, "--cdn-url", cdnURL, "--ca-file", authority.certificateFile]
    }

    /// Runs the check as `passkeyd check-domain` does, in process.
    public func run(
        apps: [String] = [app],
        android: [String] = [android],
        origin: String? = nil,
        trusting caFile: String? = nil
    ) throws -> DomainCheckReport {
        let check = try DomainCheck(domain: origin ?? domain.origin, apps: apps, android: android, cdnURL: cdnURL, timeoutSeconds: 5)
        let client = try HTTPClient(configuration: HTTPClientConfiguration(tls: try TLSClientContext(caFile: caFile ?? authority.certificateFile)))
        defer { client.shutDown() }
        return check.run(using: client)
    }

    public static func json(_ text: String, status: Int = 200) -> HTTPResponse {
        .json(status: status, Array(text.utf8))
    }
}

extension DomainCheckReport {
    /// The check of that name.
    public func check(_ name: String) -> Check? { checks.first { $0.name == name } }
}
