import ConfigurationFile
import Foundation
import RelyingPartyServer
import Testing

/// `examples/passkeyd.json`, which `make run` serves: it loads (with the shipped AAGUID list), publishes its sample
/// associated domains, and says what to set for the one file it leaves out.
struct ExampleConfigurationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The example with its repository-relative paths made absolute (`make run` starts from the repository's root).
    static func configuration() throws -> ServerConfiguration {
        let text = try String(contentsOfFile: repository + "/examples/passkeyd.json", encoding: .utf8)
        let absolute = text.replacingOccurrences(of: #""TrustAnchors/"#, with: #""\#(repository)/TrustAnchors/"#)
        #expect(absolute != text, "the example names the shipped AAGUID list")
        return try ServerConfiguration.load(json: Data(absolute.utf8))
    }

    @Test func theExampleLoadsWithTheShippedAuthenticatorNames() throws {
        let configuration = try Self.configuration()
        #expect(configuration.relyingPartyID == "localhost")
        #expect(configuration.origins == ["https://localhost:8443"])
        #expect(configuration.httpsAddress == "127.0.0.1:8443")
        #expect(configuration.attestation.sources.authenticatorNames?.path.hasSuffix("TrustAnchors/aaguid-names.json") == true)
        #expect(configuration.attestation.material.authenticatorNames.count > 10)
        #expect(configuration.associatedDomains.warnings.isEmpty)
    }

    @Test func aFirstRunServesTheSampleFiles() throws {
        var configuration = try Self.configuration()
        configuration.wwwDirectory = nil
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(configuration: configuration)))
        let association = try client.send("GET", "/.well-known/apple-app-site-association")
        #expect(association.status == 200)
        let apps = (association.object["webcredentials"] as? [String: Any])?["apps"] as? [String]
        #expect(apps == ["SAMPLETEAM.com.example.passkeyd.demo"])
        #expect(try client.send("GET", "/.well-known/assetlinks.json").status == 200)
        #expect(try client.send("GET", "/.well-known/passkey-endpoints").status == 200)
        let related = try client.send("GET", "/.well-known/webauthn")
        #expect(related.status == 404)
        #expect(related.object["key"] as? String == "associatedDomains.relatedOrigins")
    }

    /// The sample values are called samples where the example is explained.
    @Test func theSamplesAreMarkedAsSamples() throws {
        let readme = try String(contentsOfFile: Self.repository + "/examples/README.md", encoding: .utf8)
        for sample in ["SAMPLETEAM.com.example.passkeyd.demo", "com.example.passkeyd.demo", "sample"] {
            #expect(readme.contains(sample), "\(sample)")
        }
        let makefile = try String(contentsOfFile: Self.repository + "/Makefile", encoding: .utf8)
        #expect(makefile.contains("passkeyd serve --config examples/passkeyd.json"))
    }
}

/// The example of docs/operate/associated-domains.md: its configuration loads and publishes the assetlinks.json and the
/// origin the page shows.
struct ReadmeAssociatedDomainsTests {
    /// The fenced block after `<!-- associated-domains: NAME -->`.
    static func block(_ name: String) throws -> String {
        try DocumentationPage("operate/associated-domains.md").block(after: "<!-- associated-domains: \(name) -->")
    }

    @Test func theReadmesExamplePublishesWhatTheReadmeShows() throws {
        var configuration = try ServerConfiguration.load(json: Data(try Self.block("configuration").utf8))
        configuration.wwwDirectory = nil
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(configuration: configuration)))
        let shown = try Self.block("assetlinks").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined()
        #expect(try client.send("GET", "/.well-known/assetlinks.json").text == shown)
        #expect(configuration.acceptedOrigins.contains("android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU"))
        #expect(configuration.acceptedOrigins.contains("https://example.co.uk"))
        for path in ["/.well-known/apple-app-site-association", "/.well-known/webauthn", "/.well-known/passkey-endpoints"] {
            #expect(try client.send("GET", path).status == 200, "\(path)")
        }
    }
}
