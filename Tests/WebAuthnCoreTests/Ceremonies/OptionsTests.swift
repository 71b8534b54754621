import CryptoCore
import Foundation
import TestSupport
import Testing
import WebAuthnCore

@Suite("§5.4/§5.5 creation and request options JSON")
struct OptionsTests {
    static let relyingParty = RelyingParty(id: "example.com", name: "Example Corp", origins: ["https://example.com"])
    static let challenge: [UInt8] = (0..<32).map { UInt8(255 - $0) }

    static func json(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func creation(relyingParty: RelyingParty = relyingParty, exclude: [PublicKeyCredentialDescriptorJSON] = []) throws -> [String: Any] {
        try json(
            relyingParty.creationOptions(
                challenge: challenge,
                user: .init(id: Base64URL.encode([1, 2, 3, 4]), name: "alice@example.com", displayName: "Alice Ångström"),
                excludeCredentials: exclude
            )
        )
    }

    @Test func creationOptionsHaveTheWebAuthnShape() throws {
        let options = try Self.creation()
        #expect(
            Set(options.keys) == [
                "rp", "user", "challenge", "pubKeyCredParams", "timeout", "excludeCredentials",
                "authenticatorSelection", "hints", "attestation", "extensions",
            ]
        )
        #expect(options["challenge"] as? String == Base64URL.encode(Self.challenge))
        #expect(Base64URL.decode(try #require(options["challenge"] as? String)) == Self.challenge)
        let rp = try #require(options["rp"] as? [String: Any])
        #expect(rp["id"] as? String == "example.com")
        #expect(rp["name"] as? String == "Example Corp")
        let user = try #require(options["user"] as? [String: Any])
        #expect(user["id"] as? String == "AQIDBA")
        #expect(user["name"] as? String == "alice@example.com")
        #expect(user["displayName"] as? String == "Alice Ångström")
        #expect(options["timeout"] as? Int == 300_000)
        #expect(options["attestation"] as? String == "none")
        #expect((options["hints"] as? [Any])?.isEmpty == true)
        #expect((options["excludeCredentials"] as? [Any])?.isEmpty == true)
    }

    @Test func pubKeyCredParamsKeepTheConfiguredOrder() throws {
        let parameters = try #require(try Self.creation()["pubKeyCredParams"] as? [[String: Any]])
        #expect(parameters.compactMap { $0["alg"] as? Int } == [-7, -8, -257])
        #expect(parameters.allSatisfy { $0["type"] as? String == "public-key" })
        var relyingParty = Self.relyingParty
        relyingParty.algorithms = [.eddsa, .ps256, .es384]
        let custom = try #require(try Self.creation(relyingParty: relyingParty)["pubKeyCredParams"] as? [[String: Any]])
        #expect(custom.compactMap { $0["alg"] as? Int } == [-8, -37, -35])
    }

    @Test func passkeysAreRequestedByDefault() throws {
        let options = try Self.creation()
        let selection = try #require(options["authenticatorSelection"] as? [String: Any])
        #expect(selection["residentKey"] as? String == "required")
        #expect(selection["requireResidentKey"] as? Bool == true)
        #expect(selection["userVerification"] as? String == "preferred")
        #expect(selection["authenticatorAttachment"] == nil)
        let extensions = try #require(options["extensions"] as? [String: Any])
        #expect(extensions["credProps"] as? Bool == true)
    }

    @Test func excludeCredentialsCarryTheStoredIDs() throws {
        let first: [UInt8] = [0xFB, 0xFF, 0x00]
        let second = [UInt8](repeating: 0x3E, count: 64)
        let options = try Self.creation(exclude: [.init(id: first, transports: ["usb", "nfc"]), .init(id: second, transports: [])])
        let excluded = try #require(options["excludeCredentials"] as? [[String: Any]])
        #expect(excluded.compactMap { $0["id"] as? String } == [Base64URL.encode(first), Base64URL.encode(second)])
        #expect(excluded.compactMap { $0["id"] as? String }.map(Base64URL.decode) == [first, second])
        #expect(excluded.allSatisfy { $0["type"] as? String == "public-key" })
        #expect(excluded[0]["transports"] as? [String] == ["usb", "nfc"])
        #expect(excluded[1]["transports"] == nil)
    }

    @Test func requestOptionsHaveTheWebAuthnShape() throws {
        let id: [UInt8] = [0x01, 0xFE, 0x7F]
        let options = try Self.json(
            Self.relyingParty.requestOptions(challenge: Self.challenge, allowCredentials: [.init(id: id, transports: ["internal"])])
        )
        #expect(Set(options.keys) == ["challenge", "timeout", "rpId", "allowCredentials", "userVerification", "hints"])
        #expect(options["challenge"] as? String == Base64URL.encode(Self.challenge))
        #expect(options["rpId"] as? String == "example.com")
        #expect(options["userVerification"] as? String == "preferred")
        #expect(options["timeout"] as? Int == 300_000)
        let allowed = try #require(options["allowCredentials"] as? [[String: Any]])
        #expect(allowed.compactMap { $0["id"] as? String } == [Base64URL.encode(id)])
        #expect(allowed.first?["transports"] as? [String] == ["internal"])
    }

    @Test func discoverableRequestOptionsAllowAnyCredential() throws {
        let options = try Self.json(Self.relyingParty.requestOptions(challenge: Self.challenge, allowCredentials: [], userVerification: .required))
        #expect((options["allowCredentials"] as? [Any])?.isEmpty == true)
        #expect(options["userVerification"] as? String == "required")
    }
}
