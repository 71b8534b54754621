import ConfigurationFile
import ConfigurationReading
import CryptoCore
import FederatedIdentity
import Foundation
import OutboundHTTP
import RelyingPartyServer
import Storage
import TestSupport
import Testing

@Suite("The apple block")
struct AppleConfigurationTests {
    static let valid = #""teamID": "TEAM123456", "keyID": "KEY1234567", "privateKey": "/etc/passkeyd/AuthKey.p8", "bundleIDs": ["com.example.app"]"#

    static func load(_ members: String) throws -> ServerConfiguration {
        try TestServerFactory.configuration(#"{"apple": {"# + members + "}}")
    }

    static func error(_ members: String) -> ConfigurationError? {
        do {
            _ = try load(members)
            return nil
        } catch let error as ConfigurationError {
            return error
        } catch {
            return nil
        }
    }

    @Test func defaultsAreApples() throws {
        let apple = try #require(try Self.load(Self.valid).apple)
        #expect(apple.keysURL.absoluteString == "https://appleid.apple.com/auth/keys")
        #expect(apple.tokenURL.absoluteString == "https://appleid.apple.com/auth/token")
        #expect(apple.revokeURL.absoluteString == "https://appleid.apple.com/auth/revoke")
        #expect(apple.issuers == ["https://appleid.apple.com"])
        #expect(apple.audiences == ["com.example.app"])
        #expect(apple.privateKeyPath == "/etc/passkeyd/AuthKey.p8")
        #expect(try TestServerFactory.configuration().apple == nil)
    }

    @Test(arguments: [
        "http://127.0.0.1:8080/keys", "http://127.9.3.1/keys", "http://localhost:1/keys", "http://[::1]:9/keys", "https://apple.example.net/keys",
    ])
    func acceptsHTTPSAndLoopbackHTTP(_ url: String) throws {
        #expect(try Self.load(Self.valid + #", "jwksURL": "\#(url)", "issuers": ["https://issuer.example"]"#).apple?.keysURL.absoluteString == url)
    }

    @Test(arguments: [
        (#", "jwksURL": "http://appleid.apple.com/auth/keys""#, "apple.jwksURL"),
        (#", "tokenURL": "http://10.0.0.1/token""#, "apple.tokenURL"),
        (#", "revokeURL": "http://127.0.0.1.example.com/revoke""#, "apple.revokeURL"),
        (#", "revokeURL": "ftp://127.0.0.1/revoke""#, "apple.revokeURL"),
        (#", "jwksURL": "not a url""#, "apple.jwksURL"),
        (#", "issuers": []"#, "apple.issuers"),
        (#", "colour": "blue""#, "apple.colour"),
    ])
    func refusesAndNamesTheKey(_ extra: String, key: String) {
        #expect(Self.error(Self.valid + extra)?.key == key)
    }

    @Test(arguments: [
        (#""keyID": "K", "privateKey": "p", "bundleIDs": ["a"]"#, "apple.teamID"),
        (#""teamID": "team", "keyID": "K", "privateKey": "p", "bundleIDs": ["a"]"#, "apple.teamID"),
        (#""teamID": "TEAM123456", "privateKey": "p", "bundleIDs": ["a"]"#, "apple.keyID"),
        (#""teamID": "TEAM123456", "keyID": "K", "bundleIDs": ["a"]"#, "apple.privateKey"),
        (#""teamID": "TEAM123456", "keyID": "K", "privateKey": "p""#, "apple.bundleIDs"),
        (#""teamID": "TEAM123456", "keyID": "K", "privateKey": "p", "servicesIDs": [1]"#, "apple.servicesIDs"),
    ])
    func requiredKeysAreNamed(_ members: String, key: String) {
        #expect(Self.error(members)?.key == key)
    }

    @Test func theServerRefusesABlockWithoutAUsableKey() throws {
        let configuration = try Self.load(Self.valid)
        let service = HTTPClientAppleService(configuration: configuration.apple!, client: try HTTPClient())
        let secret = [UInt8](repeating: 1, count: 32)
        #expect(throws: ConfigurationError(.missingValue, key: "apple.privateKey", "was not loaded")) {
            try RelyingPartyServer(configuration: configuration, store: InMemoryStore(), enumerationSecret: secret)
        }
        let rsa = AppleSetup(service: service, privateKeyPEM: try PrivateKey.generateRSA(bits: 1024).pem(), refreshTokenKey: secret)
        let notPEM = AppleSetup(service: service, privateKeyPEM: "nonsense", refreshTokenKey: secret)
        for setup in [rsa, notPEM] {
            do {
                _ = try RelyingPartyServer(configuration: configuration, store: InMemoryStore(), enumerationSecret: secret, appleSetup: setup)
                Issue.record("accepted an unusable key")
            } catch {
                #expect(error.key == "apple.privateKey")
            }
        }
    }

    @Test(arguments: ["/auth/apple/nonce", "/auth/apple", "/auth/apple/notifications"])
    func withoutTheBlockEveryAppleEndpointIs400(_ path: String) throws {
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make()))
        let reply = try client.send("POST", path, json: try AppleTokenMinter.json(["identityToken": "a.b.c", "rawNonce": "n", "payload": "a.b.c"]))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "apple_not_configured")
        #expect(reply.object["message"] is String)
    }
}
