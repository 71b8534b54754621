import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Foundation
import RelyingPartyServer
import TestSupport
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
           "passkeyEndpoints": {"enroll": "https://example.com/account/passkeys/new", "manage": "https://example.com/account/passkeys",
                                "prfUsageDetails": "https://example.com/help/prf"}
         }}
        """

    /// The configuration is loaded at the manual clock's start: 1_800_000_000 (Fri, 15 Jan 2027 08:00:00 GMT).
    static let loaded = "Fri, 15 Jan 2027 08:00:00 GMT"

    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(
            DirectTransport(handler: try TestServerFactory.make(configuration: try TestServerFactory.configuration(Self.configuration)))
        )
    }

    static let paths = [
        "/.well-known/apple-app-site-association", "/apple-app-site-association", "/.well-known/assetlinks.json", "/.well-known/webauthn",
        "/.well-known/passkey-endpoints",
    ]

    private func file(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ServerReply {
        let reply = try client.send("GET", path)
        #expect(reply.status == 200, sourceLocation: sourceLocation)
        #expect(reply.headers["Content-Type"] == "application/json", sourceLocation: sourceLocation)
        #expect(reply.headers["Cache-Control"] == "public, max-age=3600", sourceLocation: sourceLocation)
        #expect(reply.headers["Location"] == nil, sourceLocation: sourceLocation)
        #expect(reply.headers["Last-Modified"] == Self.loaded, sourceLocation: sourceLocation)
        #expect(reply.headers["ETag"] == Self.entityTag(reply.body), sourceLocation: sourceLocation)
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

    /// A strong tag: the quoted base64url SHA-256 of the bytes.
    static func entityTag(_ body: [UInt8]) -> String { "\"" + Base64URL.encode(DigestAlgorithm.sha256.hash(body)) + "\"" }

    @Test func bothApplePathsServeTheSameFile() throws {
        #expect(try file("/.well-known/apple-app-site-association").body == (try file("/apple-app-site-association")).body)
    }

    @Test func assetLinksDelegateLoginCredentialsAndAllURLs() throws {
        let reply = try file("/.well-known/assetlinks.json")
        let statements = try #require((try JSONSerialization.jsonObject(with: Data(reply.body))) as? [[String: Any]])
        #expect(statements.count == 1)
        let statement = try #require(statements.first)
        #expect(statement["relation"] as? [String] == ["delegate_permission/common.get_login_creds", "delegate_permission/common.handle_all_urls"])
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
        #expect(reply.object["prfUsageDetails"] as? String == "https://example.com/help/prf")
        #expect(reply.object.count == 3)
    }

    @Test func emptyPasskeyEndpointsServeTheEmptyObject() throws {
        let configuration = try TestServerFactory.configuration(#"{"www": null, "associatedDomains": {"passkeyEndpoints": {}}}"#)
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(configuration: configuration)))
        let reply = try client.send("GET", "/.well-known/passkey-endpoints")
        #expect(reply.status == 200)
        #expect(reply.text == "{}")
    }

    /// Apple's CDN and Android's verifier re-fetch with the validators they were given: unchanged bytes are a 304
    /// with the same validators and Cache-Control, and no body.
    @Test(arguments: WellKnownFileTests.paths)
    func matchingEntityTagIsNotModified(path: String) throws {
        let tag = try #require(try file(path).headers["ETag"])
        for condition in [tag, "\"other\", \(tag)", "W/\(tag)", "*"] {
            for method in ["GET", "HEAD"] {
                let reply = try client.send(method, path, headers: [("If-None-Match", condition)])
                #expect(reply.status == 304, "\(method) \(condition)")
                #expect(reply.body.isEmpty)
                #expect(reply.headers["ETag"] == tag)
                #expect(reply.headers["Last-Modified"] == Self.loaded)
                #expect(reply.headers["Cache-Control"] == "public, max-age=3600")
            }
        }
    }

    @Test func otherEntityTagGetsTheFileEvenWhenTheDateWouldMatch() throws {
        let reply = try client.send(
            "GET",
            "/.well-known/assetlinks.json",
            headers: [("If-None-Match", "\"stale\""), ("If-Modified-Since", "Sat, 16 Jan 2027 08:00:00 GMT")]
        )
        #expect(reply.status == 200)
        #expect(!reply.body.isEmpty)
    }

    @Test(arguments: [
        ("Fri, 15 Jan 2027 08:00:00 GMT", 304), ("Sat, 16 Jan 2027 08:00:00 GMT", 304), ("Fri, 15 Jan 2027 07:59:59 GMT", 200),
        ("Friday, 15-Jan-27 08:00:00 GMT", 200), ("Thu, 15 Jan 2027 08:00:00 GMT", 200), ("Sun, 31 Feb 2027 08:00:00 GMT", 200), ("yesterday", 200),
    ])
    func ifModifiedSinceIsComparedWithTheLoadTime(date: String, status: Int) throws {
        let reply = try client.send("GET", "/.well-known/apple-app-site-association", headers: [("If-Modified-Since", date)])
        #expect(reply.status == status)
    }

    @Test func equalBytesHaveEqualTagsAcrossServersAndChangedBytesDoNot() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_900_000_000))
        let same = PasskeyClient(
            DirectTransport(handler: try TestServerFactory.make(configuration: try TestServerFactory.configuration(Self.configuration), clock: clock))
        )
        let first = try client.send("GET", "/.well-known/webauthn")
        let again = try same.send("GET", "/.well-known/webauthn")
        #expect(first.headers["ETag"] == again.headers["ETag"])
        #expect(again.headers["Last-Modified"] == "Sun, 17 Mar 2030 17:46:40 GMT")
        let edited = PasskeyClient(
            DirectTransport(
                handler: try TestServerFactory.make(
                    configuration: try TestServerFactory.configuration(
                        #"{"www": null, "associatedDomains": {"relatedOrigins": ["https://example.de"]}}"#
                    )
                )
            )
        )
        #expect(try edited.send("GET", "/.well-known/webauthn").headers["ETag"] != first.headers["ETag"])
    }

    /// Without the key that publishes it, a file is a JSON 404 naming that key, so a first run says what to set.
    @Test(arguments: [
        ("/.well-known/apple-app-site-association", "associatedDomains.webcredentials"),
        ("/apple-app-site-association", "associatedDomains.webcredentials"),
        ("/.well-known/assetlinks.json", "associatedDomains.android"), ("/.well-known/webauthn", "associatedDomains.relatedOrigins"),
        ("/.well-known/passkey-endpoints", "associatedDomains.passkeyEndpoints"),
    ])
    func missingConfigurationIsJSON404NamingTheKey(path: String, key: String) throws {
        let bare = PasskeyClient(DirectTransport(handler: try TestServerFactory.make()))
        let reply = try bare.send("GET", path)
        #expect(reply.status == 404)
        #expect(reply.errorCode == "not_configured")
        #expect(reply.object["key"] as? String == key)
        #expect((reply.object["message"] as? String)?.contains("key") == true)
        #expect(reply.headers["Content-Type"] == "application/json")
        #expect(reply.headers["ETag"] == nil)
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
        // {"webcredentials":{"apps":[...]}} with app IDs of 211 bytes ("ABCDE12345." and a 200-character bundle ID,
        // quoted, with a comma) and a last one (at most 255) sized to land exactly on 128 KB.
        let overhead = #"{"webcredentials":{"apps":[]}}"#.utf8.count
        var apps: [String] = []
        var size = overhead
        while 128 * 1024 - size > 269 {
            apps.append("ABCDE12345.b\(apps.count)" + String(repeating: "a", count: 199 - String(apps.count).count))
            size += apps.last!.utf8.count + 3
        }
        let last = "ABCDE12345.z" + String(repeating: "a", count: 128 * 1024 - size - 2 - 12)
        func configuration(_ final: String) throws -> ServerConfiguration {
            let list = (apps + [final]).map { "\"\($0)\"" }.joined(separator: ",")
            return try TestServerFactory.configuration(#"{"www": null, "associatedDomains": {"webcredentials": {"apps": [\#(list)]}}}"#)
        }
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(configuration: try configuration(last))))
        let reply = try client.send("GET", "/.well-known/apple-app-site-association")
        #expect(reply.status == 200)
        #expect(reply.body.count == 128 * 1024)
        let over = try configuration(last + "a")
        #expect(throws: ConfigurationError.self) { try TestServerFactory.make(configuration: over) }
    }
}
