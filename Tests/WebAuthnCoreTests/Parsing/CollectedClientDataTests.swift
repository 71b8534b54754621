import CryptoCore
import Foundation
import TestSupport
import Testing
import WebAuthnCore

@Suite("§5.8.1 client data, and its verification (§7.1 steps 5–11, §7.2 steps 8–14)")
struct CollectedClientDataTests {
    typealias Fixture = CeremonyFixture

    static func code(_ text: String) -> WebAuthnError.Code? {
        code(Array(text.utf8))
    }

    static func code(_ bytes: [UInt8]) -> WebAuthnError.Code? {
        Fixture.failureCode { _ = try CollectedClientData(bytes: bytes) }
    }

    /// The code an assertion with this client data fails with, for a relying party changed by `configure`.
    static func assertionFailure(_ clientData: ClientDataTemplate, configure: (inout RelyingParty) -> Void = { _ in }) throws -> WebAuthnError.Code? {
        let credential = try SoftwareCredential.generate(.es256)
        let response = try Fixture.authenticator.authenticate(
            credential,
            challenge: Fixture.challenge,
            options: AssertionOptions(clientData: clientData)
        )
        var relyingParty = Fixture.relyingParty()
        configure(&relyingParty)
        let expectations = AuthenticationExpectations(challenge: Fixture.challenge, credential: try credential.storedCredential())
        return Fixture.authenticationFailure(response, expectations: expectations, relyingParty: relyingParty)
    }

    @Test func membersAreRead() throws {
        let text =
            #"{"type":"webauthn.get","challenge":"AAEC","origin":"https://example.com","crossOrigin":true,"topOrigin":"https://top.example","other":[1,{"a":null}]}"#
        let clientData = try CollectedClientData(bytes: Array(text.utf8))
        #expect(clientData.type == "webauthn.get")
        #expect(clientData.challenge == "AAEC")
        #expect(clientData.origin == "https://example.com")
        #expect(clientData.crossOrigin)
        #expect(clientData.topOrigin == "https://top.example")
    }

    @Test func leadingByteOrderMarkIsRemoved() throws {
        let template = ClientDataTemplate(type: "webauthn.get", byteOrderMark: true)
        let clientData = try CollectedClientData(bytes: template.encode(challenge: [1], origin: "https://example.com"))
        #expect(clientData.type == "webauthn.get")
        #expect(try Self.assertionFailure(template) == nil)
    }

    @Test(arguments: [[0xFF], [0xC3, 0x28], [0xED, 0xA0, 0x80], [0xEF, 0xBB]] as [[UInt8]])
    func invalidUTF8Fails(insert: [UInt8]) {
        let bytes = Array(#"{"type":"webauthn.get","challenge":"AA","origin":"https://example.com","x":""#.utf8) + insert + Array(#""}"#.utf8)
        #expect(Self.code(bytes) == .invalidUTF8)
    }

    @Test(arguments: ["", "[]", "null", "{", "\"webauthn.get\"", #"{"type":"webauthn.get","challenge":"AA","origin":"x"} {}"#])
    func textThatIsNotAJSONObjectFails(text: String) {
        #expect(Self.code(text) == .invalidJSON)
    }

    @Test(arguments: [("type", .missingType), ("challenge", .missingChallenge), ("origin", .missingOrigin)] as [(String, WebAuthnError.Code)])
    func requiredMembersMustBePresent(member: String, code: WebAuthnError.Code) throws {
        let template = ClientDataTemplate(type: "webauthn.get", omittedMembers: [member])
        #expect(Self.code(template.encode(challenge: [1], origin: "https://example.com")) == code)
        #expect(try Self.assertionFailure(template) == code)
    }

    @Test(arguments: [
        #"{"type":1,"challenge":"AA","origin":"o"}"#, #"{"type":"t","challenge":["AA"],"origin":"o"}"#,
        #"{"type":"t","challenge":"AA","origin":null}"#, #"{"type":"t","challenge":"AA","origin":"o","crossOrigin":"false"}"#,
        #"{"type":"t","challenge":"AA","origin":"o","topOrigin":5}"#,
    ])
    func membersOfTheWrongTypeFail(text: String) {
        #expect(Self.code(text) == .invalidMember)
    }

    @Test func typeMustBeTheCeremonysType() throws {
        #expect(try Self.assertionFailure(ClientDataTemplate(type: "webauthn.create")) == .typeMismatch)
        #expect(try Self.assertionFailure(ClientDataTemplate(type: "payment.get")) == .typeMismatch)
    }

    @Test(arguments: [
        Base64URL.encode(CeremonyFixture.challenge) + "=", Base64URL.encode(CeremonyFixture.challenge.dropLast()), "",
        Base64URL.encode(CeremonyFixture.challenge).uppercased(),
    ])
    func challengeMustBeTheIssuedOneAsText(challenge: String) throws {
        #expect(try Self.assertionFailure(ClientDataTemplate(type: "webauthn.get", challenge: challenge)) == .challengeMismatch)
    }

    @Test(arguments: [
        "https://evil.example", "https://example.com:443", "https://example.com/", "http://example.com", "https://sub.example.com",
        "HTTPS://EXAMPLE.COM",
    ])
    func originMustMatchExactly(origin: String) throws {
        #expect(try Self.assertionFailure(ClientDataTemplate(type: "webauthn.get", origin: origin)) == .originMismatch)
    }

    @Test func crossOriginNeedsEmbeddingToBeAllowed() throws {
        let template = ClientDataTemplate(type: "webauthn.get", crossOrigin: true)
        #expect(try Self.assertionFailure(template) == .crossOriginNotAllowed)
        #expect(try Self.assertionFailure(template) { $0.allowsCrossOriginEmbedding = true } == nil)
    }

    @Test func topOriginNeedsEmbeddingToBeAllowed() throws {
        let template = ClientDataTemplate(type: "webauthn.get", crossOrigin: true, topOrigin: "https://top.example")
        #expect(try Self.assertionFailure(template) { $0.topOrigins = ["https://top.example"] } == .crossOriginNotAllowed)
    }

    @Test func topOriginMustBeOneTheRelyingPartyMayBeEmbeddedIn() throws {
        let template = ClientDataTemplate(type: "webauthn.get", crossOrigin: true, topOrigin: "https://top.example")
        #expect(
            try Self.assertionFailure(template) {
                $0.allowsCrossOriginEmbedding = true
                $0.topOrigins = ["https://other.example"]
            } == .topOriginMismatch
        )
        #expect(
            try Self.assertionFailure(template) {
                $0.allowsCrossOriginEmbedding = true
                $0.topOrigins = ["https://top.example"]
            } == nil
        )
    }

    /// WebAuthn L3 §5.8.1: tokenBinding is reserved ("its use is not expected in Level 3"), and §7.1/§7.2 have no
    /// Token Binding step: whatever status the member carries, both ceremonies ignore it.
    @Test(
        arguments: [
            #"{"status":"present","id":"AAEC"}"#, #"{"status":"supported"}"#, #"{"status":"not-supported"}"#,
            #"{"status":"some-future-status"}"#, #"{}"#, #""supported""#, #""unused""#, "null", "42",
        ]
    )
    func tokenBindingIsIgnored(json: String) throws {
        let template = ClientDataTemplate(type: "webauthn.get", extraMembers: [("tokenBinding", json)])
        #expect(try Self.assertionFailure(template) == nil)
        let credential = try SoftwareCredential.generate(.es256)
        let registration = RegistrationOptions(clientData: ClientDataTemplate(type: "webauthn.create", extraMembers: [("tokenBinding", json)]))
        #expect(try Fixture.registrationFailure(credential, options: registration) == nil)
    }

    /// Ignored is not unparsed: the client data must still be strict JSON, tokenBinding included (§7.1 step 6 / §7.2 step 9).
    @Test(arguments: [#"{"status":"present""#, #"{"status":present}"#, #"{"status":"supported",}"#, #"{"status":"supported","status":"present"}"#])
    func malformedTokenBindingStillFails(json: String) {
        let text = #"{"type":"webauthn.get","challenge":"AA","origin":"https://example.com","tokenBinding":"# + json + "}"
        #expect(Self.code(text) == .invalidJSON)
    }

    @Test func unknownMembersAreIgnored() throws {
        let template = ClientDataTemplate(
            type: "webauthn.get",
            extraMembers: [("other_keys_can_be_added_here", #""do not compare clientDataJSON against a template""#)]
        )
        #expect(try Self.assertionFailure(template) == nil)
    }

    @Test func registrationRunsTheSameChecks() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let crossOrigin = RegistrationOptions(clientData: ClientDataTemplate(type: "webauthn.create", crossOrigin: true))
        #expect(try Fixture.registrationFailure(credential, options: crossOrigin) == .crossOriginNotAllowed)
        let invalid = RegistrationOptions(mutation: ResponseMutation(clientDataJSON: { $0.append(0xFF) }))
        #expect(try Fixture.registrationFailure(credential, options: invalid) == .invalidUTF8)
    }

    /// RFC 8259 §4: member names SHOULD be unique, and no browser writes a duplicate. Parsers differ on which of
    /// two duplicated members wins, so a verifier must refuse them rather than read a different origin than another.
    @Test func duplicateMembersFail() {
        let text = #"{"type":"webauthn.get","challenge":"AA","origin":"https://evil.example","origin":"https://example.com"}"#
        #expect(Self.code(text) == .invalidJSON)
        let nested =
            #"{"type":"webauthn.get","challenge":"AA","origin":"https://example.com","tokenBinding":{"status":"supported","status":"present"}}"#
        #expect(Self.code(nested) == .invalidJSON)
    }
}
