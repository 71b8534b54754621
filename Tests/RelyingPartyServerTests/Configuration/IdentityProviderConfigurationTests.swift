import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Foundation
import Observability
import OpenIDConnect
import OutboundHTTP
import RelyingPartyServer
import Storage
import TestSupport
import Testing

@Suite("The identityProviders block")
struct IdentityProviderConfigurationTests {
    static func load(_ providers: String) throws -> ServerConfiguration {
        try TestServerFactory.configuration(#"{"identityProviders": {"# + providers + "}}")
    }

    /// The key and code of the error loading `providers` gives, or nil when it loads.
    static func error(_ providers: String) -> (key: String, code: ConfigurationError.Code)? {
        do {
            _ = try load(providers)
            return nil
        } catch let error as ConfigurationError {
            return (error.key, error.code)
        } catch {
            return ("", .invalidJSON)
        }
    }

    @Test func googleAndAGenericIssuerAreRead() throws {
        let configuration = try Self.load(
            #""google": {"type": "google", "clientIDs": ["ios", "android", "web"], "clientSecret": "GOCSPX-x"}, "#
                + #""corp": {"type": "oidc", "issuer": "https://id.example.com", "clientID": "passkeyd", "clientSecret": "s3cret", "scopes": ["openid", "email"]}"#
        )
        let providers = configuration.identityProviders
        #expect(providers.map(\.name) == ["corp", "google"])
        let google = providers[1]
        #expect(google.kind == .google && google.issuer == .google && google.clientIDs == ["ios", "android", "web"])
        #expect(google.trustEmail, "Google is authoritative for its addresses by default")
        #expect(google.clientSecret == "GOCSPX-x")
        #expect(google.discoveryURL == "https://accounts.google.com/.well-known/openid-configuration")
        let corp = providers[0]
        #expect(corp.issuer == .exact(["https://id.example.com"]) && corp.clientIDs == ["passkeyd"] && corp.clientSecret == "s3cret")
        #expect(!corp.trustEmail, "a generic issuer's users may set any address")
        #expect(corp.discoveryURL == "https://id.example.com/.well-known/openid-configuration")
        #expect(corp.scopes == ["openid", "email"])
    }

    @Test func microsoftsMultiTenantIssuerNeedsItsDiscoveryURL() throws {
        let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
        #expect(
            Self.error(#""ms": {"type": "oidc", "issuer": "\#(template)", "clientID": "c"}"#)! == ("identityProviders.ms.discoveryURL", .missingValue)
        )
        let discovery = "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration"
        let configuration = try Self.load(#""ms": {"type": "oidc", "issuer": "\#(template)", "clientID": "c", "discoveryURL": "\#(discovery)"}"#)
        #expect(configuration.identityProviders.first?.issuer == .tenantTemplate(template))
    }

    @Test(arguments: [
        (#""Google": {"type": "google", "clientIDs": ["c"]}"#, "identityProviders.Google", ConfigurationError.Code.invalidValue),
        (#""apple": {"type": "google", "clientIDs": ["c"]}"#, "identityProviders.apple", .invalidValue),
        (
            #""a-very-long-provider-name-of-more-than-32": {"type": "google", "clientIDs": ["c"]}"#,
            "identityProviders.a-very-long-provider-name-of-more-than-32", .invalidValue
        ),
        (#""google": {"type": "saml", "clientIDs": ["c"]}"#, "identityProviders.google.type", .invalidValue),
        (#""google": {"type": "google"}"#, "identityProviders.google.clientIDs", .missingValue),
        (#""google": {"type": "google", "clientIDs": []}"#, "identityProviders.google.clientIDs", .missingValue),
        (#""google": {"type": "google", "clientIDs": ["c"], "issuer": "https://x"}"#, "identityProviders.google.issuer", .unknownKey),
        (
            #""google": {"type": "google", "clientIDs": ["c"], "discoveryURL": "http://accounts.example.com/d"}"#,
            "identityProviders.google.discoveryURL", .invalidValue
        ),
        (#""google": {"type": "google", "clientIDs": ["c"], "trustEmail": "yes"}"#, "identityProviders.google.trustEmail", .invalidValue),
        (#""corp": {"type": "oidc", "clientID": "c"}"#, "identityProviders.corp.issuer", .missingValue),
        (#""corp": {"type": "oidc", "issuer": "http://id.example.com", "clientID": "c"}"#, "identityProviders.corp.issuer", .invalidValue),
        (#""corp": {"type": "oidc", "issuer": "https://id.example.com/{tenant}", "clientID": "c"}"#, "identityProviders.corp.issuer", .invalidValue),
        (#""corp": {"type": "oidc", "issuer": "https://id.example.com"}"#, "identityProviders.corp.clientID", .missingValue),
        (
            #""corp": {"type": "oidc", "issuer": "https://id.example.com", "clientID": "c", "scopes": ["email"]}"#, "identityProviders.corp.scopes",
            .invalidValue
        ),
        (#""corp": "https://id.example.com""#, "identityProviders.corp", .invalidValue),
        // private_key_jwt: the key file and its kid go together, and replace the secret.
        (
            #""corp": {"type": "oidc", "issuer": "https://id.example.com", "clientID": "c", "privateKey": "/k.pem"}"#, "identityProviders.corp.keyID",
            .missingValue
        ),
        (
            #""corp": {"type": "oidc", "issuer": "https://id.example.com", "clientID": "c", "keyID": "k1"}"#, "identityProviders.corp.keyID",
            .missingValue
        ),
        (
            #""corp": {"type": "oidc", "issuer": "https://id.example.com", "clientID": "c", "clientSecret": "s", "privateKey": "/k.pem", "keyID": "k1"}"#,
            "identityProviders.corp.privateKey", .invalidValue
        ),
        (
            #""google": {"type": "google", "clientIDs": ["c"], "privateKey": "/k.pem"}"#, "identityProviders.google.privateKey",
            .unknownKey
        ),
    ])
    func aBadProviderNamesTheMember(_ providers: String, _ key: String, _ code: ConfigurationError.Code) {
        let error = Self.error(providers)
        #expect(error?.key == key)
        #expect(error?.code == code)
    }

    @Test func loopbackHTTPIsAcceptedForStandIns() throws {
        let configuration = try Self.load(
            #""corp": {"type": "oidc", "issuer": "http://127.0.0.1:9000", "clientID": "c", "discoveryURL": "http://127.0.0.1:9000/d"}"#
        )
        #expect(configuration.identityProviders.first?.discoveryURL == "http://127.0.0.1:9000/d")
    }

    /// `private_key_jwt`: the key file is read when the server starts; a missing file, or a key that signs neither
    /// ES256 nor RS256, stops the start with the member named.
    @Test func privateKeyJWTKeysAreReadAtStart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("assertion-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let usable = folder.appendingPathComponent("p256.pem").path
        try Data(try PrivateKey.generateEC(.p256).pem().utf8).write(to: URL(fileURLWithPath: usable))
        let edwards = folder.appendingPathComponent("ed25519.pem").path
        try Data(try PrivateKey.generateEdwards(.ed25519).pem().utf8).write(to: URL(fileURLWithPath: edwards))
        let outbound = try HTTPClient()
        func start(_ path: String) -> ConfigurationError.Code? {
            do {
                let configuration = try Self.load(
                    #""corp": {"type": "oidc", "issuer": "https://id.example.com", "clientID": "c", "privateKey": "\#(path)", "keyID": "k1"}"#
                )
                #expect(configuration.identityProviders.first?.clientAssertionKeyFile == path)
                _ = try RelyingPartyServer(
                    configuration: configuration,
                    store: InMemoryStore(),
                    time: ManualClock(),
                    random: SystemRandom(),
                    enumerationSecret: Array(repeating: 0x5A, count: 32),
                    webhookClient: outbound,
                    log: .discarding
                )
                return nil
            } catch let error as ConfigurationError {
                #expect(error.key == "identityProviders.corp.privateKey")
                return error.code
            } catch {
                return .invalidJSON
            }
        }
        #expect(start(usable) == nil)
        #expect(start(folder.appendingPathComponent("missing.pem").path) == .unreadable)
        #expect(start(edwards) == .invalidFile)
    }
}
