import AccessTokens
import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Foundation
import Testing

/// The `tokens`, `backends` and `cors` blocks: defaults from the relying party, bounds, and errors naming the key.
@Suite struct TokenConfigurationTests {
    static func parse(_ members: String) throws(ConfigurationError) -> ServerConfiguration {
        try ServerConfiguration(
            json: Data(
                #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com", "https://www.example.com", "android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"]}, \#(members)}"#
                    .utf8
            )
        )
    }

    @Test func defaultsComeFromTheRelyingParty() throws {
        let configuration = try Self.parse(#""www": null"#)
        #expect(configuration.tokenIssuer == "https://example.com")
        #expect(configuration.tokenAudiences == ["example.com"])
        #expect(configuration.tokens.lifetimeSeconds == 900 && configuration.tokens.rotationDays == 30 && configuration.tokens.algorithm == .es256)
        #expect(configuration.corsAllowedOrigins == ["https://example.com", "https://www.example.com"])
        #expect(configuration.backends.isEmpty)
        let set = try Self.parse(
            #""tokens": {"issuer": "https://auth.example.com", "audiences": ["api", "web"], "lifetimeSeconds": 300, "algorithm": "EdDSA", "rotationDays": 7}, "cors": {"allowedOrigins": ["https://app.example.com"]}, "backends": [{"name": "api", "keySHA256": "\#(String(repeating: "ab", count: 32))"}]"#
        )
        #expect(set.tokenIssuer == "https://auth.example.com" && set.tokenAudiences == ["api", "web"])
        #expect(set.tokens.lifetimeSeconds == 300 && set.tokens.algorithm == .edDSA && set.tokens.rotationDays == 7)
        #expect(set.corsAllowedOrigins == ["https://app.example.com"])
        #expect(set.backends == [BackendKey(name: "api", keySHA256: String(repeating: "ab", count: 32))])
    }

    @Test(arguments: [
        (#""tokens": {"lifetime": 5}"#, "tokens.lifetime", ConfigurationError.Code.unknownKey),
        (#""tokens": {"lifetimeSeconds": 86401}"#, "tokens.lifetimeSeconds", .invalidValue),
        (#""tokens": {"lifetimeSeconds": 59}"#, "tokens.lifetimeSeconds", .invalidValue),
        (#""tokens": {"algorithm": "HS256"}"#, "tokens.algorithm", .invalidValue),
        (#""tokens": {"algorithm": "none"}"#, "tokens.algorithm", .invalidValue),
        (#""tokens": {"issuer": "http://example.com"}"#, "tokens.issuer", .invalidValue),
        (#""tokens": {"issuer": "https://example.com/"}"#, "tokens.issuer", .invalidValue),
        (#""tokens": {"issuer": "https://example.com?a=b"}"#, "tokens.issuer", .invalidValue),
        (#""tokens": {"audiences": []}"#, "tokens.audiences", .invalidValue),
        (#""tokens": {"audiences": ["a", "a"]}"#, "tokens.audiences", .invalidValue),
        (#""tokens": {"rotationDays": 0}"#, "tokens.rotationDays", .invalidValue),
        (#""tokens": []"#, "tokens", .invalidValue),
        (#""cors": {"allowedOrigins": ["*"]}"#, "cors.allowedOrigins", .invalidValue),
        (#""cors": {"allowedOrigins": ["https://example.com/path"]}"#, "cors.allowedOrigins", .invalidValue),
        (#""cors": {"allowedOrigins": ["android:apk-key-hash:Ab"]}"#, "cors.allowedOrigins", .invalidValue),
        (#""cors": {"origins": []}"#, "cors.origins", .unknownKey),
        (#""backends": {}"#, "backends", .invalidValue),
        (#""backends": [{"name": "api"}]"#, "backends[0].keySHA256", .missingValue),
        (#""backends": [{"name": "api", "keySHA256": "ABCD"}]"#, "backends[0].keySHA256", .invalidValue),
        (#""backends": [{"name": "api", "keySHA256": "\#(String(repeating: "AB", count: 32))"}]"#, "backends[0].keySHA256", .invalidValue),
        (#""backends": [{"name": "a b", "keySHA256": "\#(String(repeating: "ab", count: 32))"}]"#, "backends[0].name", .invalidValue),
        (#""backends": [{"name": "api", "key": "x"}]"#, "backends[0].key", .unknownKey),
        (
            #""backends": [{"name": "api", "keySHA256": "\#(String(repeating: "ab", count: 32))"}, {"name": "api", "keySHA256": "\#(String(repeating: "cd", count: 32))"}]"#,
            "backends[1].name", .invalidValue
        ),
    ])
    func invalidValuesNameTheirKey(members: String, key: String, code: ConfigurationError.Code) {
        #expect {
            try Self.parse(members)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.code == code && error.key == key
        }
    }
}
