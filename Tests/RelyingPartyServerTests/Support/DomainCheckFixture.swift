import CryptoCore
import Foundation
import HTTPServer
import RelyingPartyServer
import TestSupport

/// A domain served by passkeyd itself on https://localhost:PORT (certificate from a test CA), Apple's CDN stand-in
/// serving a copy of its apple-app-site-association, and the client and arguments `check-domain` is run with.
/// Tests break one thing at a time through `domain.answer(_:with:)` and `cdn.answer(_:with:)`.
final class DomainCheckFixture {
    static let app = "ABCDE12345.com.example.app"
    static let fingerprint = AssociatedDomainsConfigurationTests.fingerprint
    static let android = "com.example.app:" + fingerprint
    static let cdnPath = "/a/v1/localhost"

    static let configuration = """
        {"relyingParty": {"id": "localhost", "name": "Example", "origins": ["https://localhost"]}, "www": null,
         "associatedDomains": {
           "webcredentials": {"apps": ["\(app)"]},
           "applinks": {"details": [{"appIDs": ["\(app)"], "components": [{"/": "/open/*"}]}]},
           "android": [{"package": "com.example.app", "sha256CertFingerprints": ["\(fingerprint)"]}],
           "relatedOrigins": ["https://example.co.uk"],
           "passkeyEndpoints": {"enroll": "https://localhost/account/passkeys/new", "manage": "https://localhost/account/passkeys"}
         }}
        """

    let authority: TestCertificateAuthority
    let domain: DomainStandIn
    let cdn: DomainStandIn
    /// The bytes passkeyd publishes, which the CDN stand-in serves as its copy.
    let association: [UInt8]

    init() throws {
        authority = try TestCertificateAuthority()
        let certificate = try authority.issue(names: ["localhost", "127.0.0.1"])
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(Self.configuration))
        domain = try DomainStandIn(certificate: certificate, fallback: server)
        association = server.handle(HTTPRequest(method: "GET", path: "/.well-known/apple-app-site-association")).body
        cdn = try DomainStandIn(certificate: certificate, answers: [Self.cdnPath: .json(status: 200, association)])
    }

    var cdnURL: String { cdn.origin + Self.cdnPath }

    /// The command line's arguments for the domain, its apps and the CDN stand-in.
    var arguments: [String] {
        [domain.origin, "--app", Self.app, "--android", Self.android, "--cdn-url", cdnURL, "--ca-file", authority.certificateFile]
    }

    /// Runs the check as `passkeyd check-domain` does, in process.
    func run(apps: [String] = [app], android: [String] = [android], origin: String? = nil, trusting caFile: String? = nil) throws -> DomainCheckReport
    {
        let check = try DomainCheck(domain: origin ?? domain.origin, apps: apps, android: android, cdnURL: cdnURL, timeoutSeconds: 5)
        let client = try HTTPClient(configuration: HTTPClientConfiguration(tls: try TLSClientContext(caFile: caFile ?? authority.certificateFile)))
        defer { client.shutDown() }
        return check.run(using: client)
    }

    static func json(_ text: String, status: Int = 200) -> HTTPResponse {
        .json(status: status, Array(text.utf8))
    }
}

extension DomainCheckReport {
    /// The check of that name.
    func check(_ name: String) -> Check? { checks.first { $0.name == name } }
}
