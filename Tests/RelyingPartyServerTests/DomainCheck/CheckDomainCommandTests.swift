import Foundation
import HTTPFields
import HTTPServer
import TestSupport
import Testing

/// `passkeyd check-domain` as a user runs it: the real binary against the stand-ins, its exit statuses, its JSON form,
/// and the two sample outputs of docs/operate/associated-domains.md, which are this test's runs (with the stand-ins' ports written as 8443 for the
/// domain and 8444 for the CDN).
struct CheckDomainCommandTests {
    let fixture: DomainCheckFixture

    init() throws {
        fixture = try DomainCheckFixture()
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let result = try ChildProcess.run(try ServeProcess.executable(), ["check-domain"] + arguments)
        return (result.status, String(decoding: result.output, as: UTF8.self), result.errorOutput)
    }

    /// The command line and its output as the documentation shows them.
    private func transcript(_ arguments: [String], _ output: String) -> String {
        let shown = arguments.map { $0 == fixture.authority.certificateFile ? "ca.pem" : $0 }
        let text = "$ passkeyd check-domain " + shown.joined(separator: " ") + "\n" + output
        return text.replacingOccurrences(of: "localhost:\(fixture.domain.port)", with: "localhost:8443")
            .replacingOccurrences(of: "localhost:\(fixture.cdn.port)", with: "localhost:8444")
    }

    static let page = "operate/associated-domains.md"

    /// The fenced block after `<!-- check-domain: NAME -->` in docs/operate/associated-domains.md.
    private static func readmeBlock(_ name: String) throws -> String {
        try DocumentationPage(page).block(after: "<!-- check-domain: \(name) -->")
    }

    private func expectReadme(_ name: String, _ transcript: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = NSTemporaryDirectory() + "check-domain-\(name).txt"
        try? transcript.write(toFile: path, atomically: true, encoding: .utf8)
        if try Self.readmeBlock(name) != transcript {
            Issue.record(
                "docs/\(Self.page): the check-domain \(name) output is not this run's (written to \(path)):\n\(transcript)",
                sourceLocation: sourceLocation
            )
        }
    }

    @Test func aCorrectDomainExitsZeroAndIsTheReadmesOutput() throws {
        let (status, output, errors) = try run(fixture.arguments)
        #expect(status == 0, "\(output)\(errors)")
        #expect(output.hasSuffix("exit 0)\n"))
        try expectReadme("correct", transcript(fixture.arguments, output))
    }

    /// The commonest breakages at once: the entitlement's app under another team ID, an Android file answered by a web
    /// app's catch-all page, and Apple's CDN still on the previous file.
    @Test func aBrokenDomainExitsOneAndIsTheReadmesOutput() throws {
        fixture.domain.answer(
            "/.well-known/assetlinks.json",
            with: HTTPResponse(
                status: 200,
                headers: HTTPHeaders([("Content-Type", "text/html")]),
                body: Array("<!doctype html><title>Shop</title>".utf8)
            )
        )
        fixture.cdn.answer(DomainCheckFixture.cdnPath, with: DomainCheckFixture.json(#"{"webcredentials":{"apps":["ABCDE12345.com.example.beta"]}}"#))
        var arguments = fixture.arguments
        arguments[2] = "VWXYZ67890.com.example.app"
        let (status, output, errors) = try run(arguments)
        #expect(status == 1, "\(output)\(errors)")
        try expectReadme("broken", transcript(arguments, output))
    }

    @Test func theJSONFormCarriesTheSameVerdict() throws {
        fixture.domain.answer("/.well-known/webauthn", with: DomainCheckFixture.json(#"{"origins": ["http://example.co.uk"]}"#))
        let (status, output, _) = try run(fixture.arguments + ["--json"])
        #expect(status == 1)
        #expect(output.split(separator: "\n").count == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(document["exitStatus"] as? Int == 1)
        #expect(document["verdict"] as? String == "wrong")
        let failed = (document["checks"] as? [[String: String]])?.filter { $0["outcome"] == "fail" }.map { $0["check"] }
        #expect(failed == ["webauthn content"])
    }

    @Test func aRedirectOrABadCertificateExitsOne() throws {
        var redirect = HTTPResponse(status: 302)
        redirect.headers.add("Location", "/login")
        fixture.domain.answer("/.well-known/apple-app-site-association", with: redirect)
        #expect(try run(fixture.arguments).status == 1)
        let other = try TestCertificateAuthority(commonName: "another CA")
        var untrusting = fixture.arguments
        untrusting[untrusting.count - 1] = other.certificateFile
        let (status, output, _) = try run(untrusting)
        #expect(status == 1)
        #expect(output.hasPrefix("FAIL   https: "))
    }

    @Test func anUnreachableDomainExitsTwo() throws {
        var arguments = fixture.arguments
        arguments[0] = "https://localhost:\(try LoopbackPort.free())"
        let (status, output, _) = try run(arguments)
        #expect(status == 2)
        #expect(output.hasPrefix("ERROR  https: "))
    }

    @Test(arguments: [
        [String](), ["https://example.com", "https://example.org"], ["https://example.com", "--app", "com.example.app"],
        ["https://example.com", "--android", "com.example.app"], ["https://example.com", "--cdn-url", "http://cdn.example/"],
        ["https://example.com", "--ca-file", "/nonexistent/ca.pem"], ["https://example.com", "--json=yes"], ["http://example.com"],
        ["https://example.com", "--mode", "developer"],
    ])
    func aCommandLineThatCannotRunExitsTwo(arguments: [String]) throws {
        let (status, output, errors) = try run(arguments)
        #expect(status == 2)
        #expect(output.isEmpty)
        #expect(errors.hasPrefix("passkeyd check-domain: "), "\(errors)")
    }

    /// End to end: `passkeyd serve` publishing the files (and logging the related-origins warning at start-up), checked
    /// by `passkeyd check-domain` over HTTPS against the server's own generated certificate.
    @Test func aServedDomainPassesCheckDomainEndToEnd() throws {
        let folder = try TemporaryFolder()
        let origins = ["https://a.com", "https://b.com", "https://c.co.uk", "https://d.de", "https://e.fr", "https://f.io"]
        let server = try ServeProcess(
            dataDirectory: folder.path + "/data",
            configurationPath: folder.path + "/passkeyd.json",
            extraMembers: #""associatedDomains": {"webcredentials": {"apps": ["\#(DomainCheckFixture.app)"]}, "#
                + #""android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(DomainCheckFixture.fingerprint)"]}], "#
                + #""relatedOrigins": [\#(origins.map { "\"\($0)\"" }.joined(separator: ","))]}"#
        )
        defer { _ = server.terminate() }
        #expect(server.log.contains("associatedDomains.relatedOrigins: 6 registrable-domain labels"))
        let association = try CurlTransport(port: server.port).send("GET", "/.well-known/apple-app-site-association", body: nil, headers: [])
        fixture.cdn.answer(DomainCheckFixture.cdnPath, with: .json(status: 200, association.body))
        // One CA file for both: the server's self-signed certificate and the test CA of the CDN stand-in.
        let trusted = folder.path + "/trusted.pem"
        let bundle =
            try String(contentsOfFile: folder.path + "/data/tls-certificate.pem", encoding: .utf8)
            + (try String(contentsOfFile: fixture.authority.certificateFile, encoding: .utf8))
        try bundle.write(toFile: trusted, atomically: true, encoding: .utf8)
        let (status, output, errors) = try run([
            "https://127.0.0.1:\(server.port)", "--app", DomainCheckFixture.app, "--android", DomainCheckFixture.android, "--cdn-url", fixture.cdnURL,
            "--ca-file", trusted,
        ])
        #expect(status == 0, "\(output)\(errors)")
        #expect(output.contains("warn   webauthn content: 6 registrable-domain labels"))
        #expect(output.contains("--     passkey-endpoints: not published (404)"))
    }
}
