import Foundation
import RelyingPartyServer
import Testing

/// The associated-domain files, published from the `associatedDomains` block.
struct WellKnownFileTests {
    static let fingerprint = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")

    static let configuration = """
        {"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null,
         "associatedDomains": {
           "webcredentials": {"apps": ["ABCDE12345.com.example.app", "VWXYZ67890.com.example.other"]},
           "applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/open/*"}]}]},
           "android": [{"package": "com.example.app", "sha256CertFingerprints": ["\(fingerprint)"]}],
           "relatedOrigins": ["https://example.co.uk", "https://example.de"],
           "passkeyEndpoints": {"enroll": "https://example.com/account/passkeys/new", "manage": "https://example.com/account/passkeys"}
         }}
        """

    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(
            DirectTransport(handler: try TestServerFactory.make(configuration: try TestServerFactory.configuration(Self.configuration)))
        )
    }

    private func file(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ServerReply {
        let reply = try client.send("GET", path)
        #expect(reply.status == 200, sourceLocation: sourceLocation)
        #expect(reply.headers["Content-Type"] == "application/json", sourceLocation: sourceLocation)
        #expect(reply.headers["Cache-Control"] == "public, max-age=3600", sourceLocation: sourceLocation)
        #expect(reply.headers["Location"] == nil, sourceLocation: sourceLocation)
        return reply
    }

    @Test(arguments: ["/.well-known/apple-app-site-association", "/apple-app-site-association"])
    func appleAppSiteAssociationIsExactJSON(path: String) throws {
        let reply = try file(path)
        #expect(
            reply.text == #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/open/*"}]}]},"#
                + #""webcredentials":{"apps":["ABCDE12345.com.example.app","VWXYZ67890.com.example.other"]}}"#
        )
    }

    @Test func headGetsTheSameHeaders() throws {
        let reply = try client.send("HEAD", "/.well-known/apple-app-site-association")
        #expect(reply.status == 200)
        #expect(reply.headers["Content-Type"] == "application/json")
    }

    @Test func assetLinksDelegateLoginCredentials() throws {
        let reply = try file("/.well-known/assetlinks.json")
        let statements = try #require((try JSONSerialization.jsonObject(with: Data(reply.body))) as? [[String: Any]])
        #expect(statements.count == 1)
        let statement = try #require(statements.first)
        #expect(statement["relation"] as? [String] == ["delegate_permission/common.get_login_creds"])
        let target = try #require(statement["target"] as? [String: Any])
        #expect(target["namespace"] as? String == "android_app")
        #expect(target["package_name"] as? String == "com.example.app")
        #expect(target["sha256_cert_fingerprints"] as? [String] == [Self.fingerprint])
        #expect(Set(target.keys) == ["namespace", "package_name", "sha256_cert_fingerprints"])
    }

    @Test func relatedOrigins() throws {
        let reply = try file("/.well-known/webauthn")
        #expect(reply.text == #"{"origins":["https://example.co.uk","https://example.de"]}"#)
    }

    @Test func passkeyEndpoints() throws {
        let reply = try file("/.well-known/passkey-endpoints")
        #expect(reply.object["enroll"] as? String == "https://example.com/account/passkeys/new")
        #expect(reply.object["manage"] as? String == "https://example.com/account/passkeys")
        #expect(reply.object.count == 2)
    }

    @Test(arguments: [
        "/.well-known/apple-app-site-association", "/apple-app-site-association", "/.well-known/assetlinks.json",
        "/.well-known/webauthn", "/.well-known/passkey-endpoints",
    ])
    func missingConfigurationIsJSON404(path: String) throws {
        let bare = PasskeyClient(DirectTransport(handler: try TestServerFactory.make()))
        let reply = try bare.send("GET", path)
        #expect(reply.status == 404)
        #expect(reply.errorCode == "not_found")
        #expect(reply.headers["Content-Type"] == "application/json")
    }

    @Test func wellKnownFilesAreGetOnly() throws {
        let reply = try client.send("POST", "/.well-known/apple-app-site-association", json: Array("{}".utf8))
        #expect(reply.status == 404)
        #expect(reply.errorCode == "not_found")
    }

    @Test func associationOverAppleLimitRefusesToStart() throws {
        let details = (0..<3000).map { #"{"appIDs":["ABCDE12345.com.example.app\#($0)"],"components":[{"/":"/path/\#($0)/*"}]}"# }
        let json = #"{"www": null, "associatedDomains": {"applinks": {"details": ["# + details.joined(separator: ",") + "]}}}"
        #expect(json.utf8.count > 128 * 1024)
        let configuration = try TestServerFactory.configuration(json)
        #expect {
            try TestServerFactory.make(configuration: configuration)
        } throws: { error in
            (error as? ConfigurationError)?.key == "associatedDomains" && (error as? ConfigurationError)?.reason.contains("131072") == true
        }
    }

    @Test func associationJustUnderAppleLimitStarts() throws {
        // {"webcredentials":{"apps":[...]}} with one long bundle ID, sized to land exactly on 128 KB.
        let overhead = #"{"webcredentials":{"apps":["ABCDE12345."]}}"#.utf8.count
        let bundle = String(repeating: "a", count: 128 * 1024 - overhead)
        let configuration = try TestServerFactory.configuration(
            #"{"www": null, "associatedDomains": {"webcredentials": {"apps": ["ABCDE12345.\#(bundle)"]}}}"#
        )
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(configuration: configuration)))
        let reply = try client.send("GET", "/.well-known/apple-app-site-association")
        #expect(reply.status == 200)
        #expect(reply.body.count == 128 * 1024)
        let over = try TestServerFactory.configuration(
            #"{"www": null, "associatedDomains": {"webcredentials": {"apps": ["ABCDE12345.\#(bundle)a"]}}}"#
        )
        #expect(throws: ConfigurationError.self) { try TestServerFactory.make(configuration: over) }
    }
}
