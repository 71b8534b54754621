import ConfigurationFile
import ConfigurationReading
import Foundation
import Testing

@Suite("oidc.clients configuration")
struct OIDCConfigurationTests {
    static let secretHash = String(repeating: "ab", count: 32)

    static func configuration(_ clients: String, extra: String = "") throws(ConfigurationError) -> ServerConfiguration {
        try ServerConfiguration(json: Data(#"{"oidc": {"clients": [\#(clients)]}\#(extra)}"#.utf8))
    }

    static func refusal(_ clients: String, extra: String = "") -> ConfigurationError? {
        do {
            _ = try configuration(clients, extra: extra)
            return nil
        } catch {
            return error
        }
    }

    @Test func aPublicAndAConfidentialClientAreRead() throws {
        let configuration = try Self.configuration(
            """
            {"id": "ios-app", "name": "The iOS app", "type": "public",
             "redirectURIs": ["com.example.app:/callback", "myapp://callback", "http://127.0.0.1/callback", "https://app.example/cb"]},
            {"id": "web", "name": "Web", "type": "confidential", "secretSHA256": "\(Self.secretHash)",
             "redirectURIs": ["https://web.example/oidc/callback"], "scopes": ["openid", "email"]}
            """
        )
        #expect(configuration.oidc.clients.count == 2)
        let app = try #require(configuration.oidc.client(id: "ios-app"))
        #expect(app.type == .public && app.secretSHA256 == nil && app.scopes == OIDCClient.supportedScopes)
        let web = try #require(configuration.oidc.client(id: "web"))
        #expect(web.type == .confidential && web.secretSHA256 == Self.secretHash && web.scopes == ["openid", "email"])
        #expect(configuration.oidc.refreshTokenLifetimeSeconds == 2_592_000)
        #expect(configuration.oidc.client(id: "nobody") == nil)
    }

    @Test func redirectURIsAreMatchedExactlyButLoopbackOnAnyPort() throws {
        let client = OIDCClient(
            id: "app",
            name: "App",
            redirectURIs: ["https://app.example/cb", "http://127.0.0.1/callback", "http://[::1]:8080/cb", "myapp://callback"],
            type: .public
        )
        #expect(client.registeredRedirectURI("https://app.example/cb") == "https://app.example/cb")
        #expect(client.registeredRedirectURI("myapp://callback") == "myapp://callback")
        // RFC 8252 §7.3: the loopback port is the app's choice at run time.
        #expect(client.registeredRedirectURI("http://127.0.0.1:51234/callback") == "http://127.0.0.1/callback")
        #expect(client.registeredRedirectURI("http://[::1]:9/cb") == "http://[::1]:8080/cb")
        for refused in [
            "https://app.example/cb/", "https://app.example/cb?x=1", "https://APP.example/cb", "https://app.example:443/cb",
            "https://app.example/cb#f", "http://app.example/cb", "https://evil.example/cb", "http://127.0.0.1:5/other",
            "http://localhost:5/callback", "myapp://callback/", "MYAPP://callback", "", "https://app.example/c",
        ] {
            #expect(client.registeredRedirectURI(refused) == nil, "\(refused)")
        }
    }

    @Test(arguments: [
        (#"{"id": "a", "name": "A", "type": "public", "redirectURIs": ["http://example.com/cb"]}"#, "http is only for loopback"),
        (#"{"id": "a", "name": "A", "type": "public", "redirectURIs": ["http://localhost/cb"]}"#, "http is only for loopback"),
        (#"{"id": "a", "name": "A", "type": "public", "redirectURIs": ["https://app.example/cb#x"]}"#, "fragment"),
        (#"{"id": "a", "name": "A", "type": "public", "redirectURIs": ["javascript:alert(1)"]}"#, "is not a redirect scheme"),
        (#"{"id": "a", "name": "A", "type": "public", "redirectURIs": ["/relative"]}"#, "absolute"),
        (#"{"id": "a", "name": "A", "type": "public", "redirectURIs": ["https:///nohost"]}"#, "host"),
        (#"{"id": "a", "name": "A", "type": "public", "redirectURIs": []}"#, "1 to 16"),
        (#"{"id": "a", "name": "A", "type": "confidential", "secretSHA256": "HASH", "redirectURIs": ["myapp://cb"]}"#, "custom scheme"),
        (#"{"id": "a", "name": "A", "type": "confidential", "redirectURIs": ["https://a.example/cb"]}"#, "SHA-256"),
        (#"{"id": "a", "name": "A", "type": "confidential", "secretSHA256": "ABCD", "redirectURIs": ["https://a.example/cb"]}"#, "SHA-256"),
        (#"{"id": "a", "name": "A", "type": "public", "secretSHA256": "HASH", "redirectURIs": ["https://a.example/cb"]}"#, "no secret"),
        (#"{"id": "a", "name": "A", "type": "spa", "redirectURIs": ["https://a.example/cb"]}"#, "public"),
        (#"{"id": "a b", "name": "A", "type": "public", "redirectURIs": ["https://a.example/cb"]}"#, "ASCII letters"),
        (#"{"id": "a", "name": "A", "type": "public", "redirectURIs": ["https://a.example/cb"], "scopes": ["openid", "admin"]}"#, "not a scope"),
        (#"{"id": "a", "name": "A", "type": "public", "redirectURIs": ["https://a.example/cb"], "scopes": ["email"]}"#, "openid"),
        (#"{"id": "a", "name": "A", "type": "public", "redirectURIs": ["https://a.example/cb"], "grants": []}"#, "not a configuration key"),
        (
            #"{"id": "a", "name": "A", "type": "public", "redirectURIs": ["https://a.example/cb"]}, {"id": "a", "name": "B", "type": "public", "redirectURIs": ["https://b.example/cb"]}"#,
            "listed twice"
        ),
        (#"{"id": "localhost", "name": "A", "type": "public", "redirectURIs": ["https://a.example/cb"]}"#, "token audience"),
    ])
    func badClientsStopTheStart(client: String, reason: String) {
        let error = Self.refusal(client.replacingOccurrences(of: "HASH", with: Self.secretHash))
        #expect(error != nil, "\(client)")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error)) should say \(reason)")
        #expect(error?.key.hasPrefix("oidc.clients") == true, "\(String(describing: error?.key))")
    }

    @Test func theRefreshLifetimeIsBounded() {
        #expect(Self.refusal("", extra: "") == nil)
        let error: ConfigurationError?
        do {
            _ = try ServerConfiguration(json: Data(#"{"oidc": {"refreshTokenLifetimeSeconds": 10}}"#.utf8))
            error = nil
        } catch let refused {
            error = refused
        }
        #expect(error?.key == "oidc.refreshTokenLifetimeSeconds")
    }
}
