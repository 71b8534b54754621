import JSON
import Testing

@testable import WebAuthnCore

/// `PlainClientDataReader` reads client data without a JSON tree when the text has the plain shape browsers write,
/// and answers nil otherwise so that the general parser decides. It must never accept what the general parser
/// refuses, nor read different members.
@Suite("The plain client data reader agrees with the general parser")
struct PlainClientDataReaderTests {
    static func plain(_ text: String) -> CollectedClientData.Members? {
        PlainClientDataReader.members(of: Array(text.utf8)[...])
    }

    static func general(_ text: String) -> CollectedClientData.Members? {
        (try? StrictJSONParser.parseObjectMembers(Array(text.utf8)[...])).map(CollectedClientData.Members.init(list:))
    }

    /// What browsers write, Chrome's extra member included: read by the plain reader, as the general parser reads it.
    static let browserShapes: [String] = [
        #"{"type":"webauthn.get","challenge":"AAEC","origin":"https://example.com","crossOrigin":false}"#,
        #"{"type":"webauthn.create","challenge":"AAEC","origin":"https://example.com","crossOrigin":false,"other_keys_can_be_added_here":"do not compare clientDataJSON against a template. See https://goo.gl/yabPex"}"#,
        #"{"type":"webauthn.get","challenge":"AAEC","origin":"https://example.com","crossOrigin":true,"topOrigin":"https://top.example"}"#,
        #"{"type":"webauthn.get","challenge":"AAEC","origin":"android:apk-key-hash:abc","androidPackageName":"com.example"}"#,
        #"{"challenge":"AAEC","origin":"https://é.example","type":"webauthn.get","crossOrigin":null,"tokenBinding":"unused"}"#,
        " \t\r\n{ \"type\" : \"t\" ,\n\"challenge\":\"c\",\"origin\":\"o\" }\n",
        #"{"type":"t"}"#,
        "{}",
    ]

    @Test(arguments: browserShapes)
    func readsBrowserShapesAsTheGeneralParserDoes(text: String) throws {
        let members = try #require(Self.plain(text))
        #expect(members == Self.general(text))
    }

    @Test func readsTheMembersTheStepsNeed() throws {
        let members = try #require(Self.plain(Self.browserShapes[2]))
        #expect(members.type == .string("webauthn.get"))
        #expect(members.challenge == .string("AAEC"))
        #expect(members.origin == .string("https://example.com"))
        #expect(members.crossOrigin == .bool(true))
        #expect(members.topOrigin == .string("https://top.example"))
    }

    /// Valid client data outside the plain shape is left to the general parser, which reads it.
    static let otherShapes: [String] = [
        #"{"type":"t","challenge":"c","origin":"https:\/\/example.com"}"#,
        #"{"type":"t","challenge":"c","origin":"\u00e9"}"#,
        #"{"typ\u0065":"t","challenge":"c","origin":"o"}"#,
        #"{"type":"t","challenge":"c","origin":"o","n":1}"#,
        #"{"type":"t","challenge":"c","origin":"o","tokenBinding":{"status":"present"}}"#,
        #"{"type":"t","challenge":"c","origin":"o","list":[]}"#,
        #"{"type":"t","challenge":"c","origin":"o","é":"x"}"#,
        "{" + (0...PlainClientDataReader.maximumMembers).map { #""m\#($0)":"v""# }.joined(separator: ",") + "}",
    ]

    @Test(arguments: otherShapes)
    func leavesOtherValidShapesToTheGeneralParser(text: String) {
        #expect(Self.plain(text) == nil)
        #expect(Self.general(text) != nil)
    }

    /// Everything the general parser refuses, the plain reader refuses too (and the general parser then reports it).
    static let refused: [String] = [
        #"{"type":"t","challenge":"c","origin":"o"} x"#,
        #"{"type":"t","challenge":"c","origin":"o"}{}"#,
        #"{"type":"t","challenge":"c","origin":"o",}"#,
        #"{"type":"t","challenge":"c","origin":"o""#,
        #"{"type":"t","challenge":"c","origin":"o"#,
        #"{"type":"t","challenge":"c","origin"}"#,
        #"{"type":"t","challenge":"c","origin":}"#,
        #"{"type":"t""challenge":"c"}"#,
        #"{"type":"t",,"challenge":"c"}"#,
        #"{,"type":"t"}"#,
        #"{'type':"t","challenge":"c","origin":"o"}"#,
        #"{type:"t"}"#,
        #"{"type":"t","challenge":"c","origin":"o","crossOrigin":tru}"#,
        #"{"type":"t","challenge":"c","origin":"o","crossOrigin":falsey}"#,
        #"{"type":"t","challenge":"c","origin":"o","crossOrigin":nul}"#,
        "{\"type\":\"t\",\"challenge\":\"c\",\"origin\":\"a\u{1}b\"}",
        "{\"ty\u{1F}pe\":\"t\"}",
        #"{"type":"webauthn.get","challenge":"AA","origin":"https://evil.example","origin":"https://example.com"}"#,
        #"{"type":"a","type":"b"}"#,
        #"["type","t"]"#,
        #""type""#,
        "{",
        "",
        " ",
    ]

    @Test(arguments: refused)
    func neverAcceptsWhatTheGeneralParserRefuses(text: String) {
        #expect(Self.general(text) == nil)
        #expect(Self.plain(text) == nil)
    }

    /// A duplicate of a member the steps do not read is refused as much as one they read.
    @Test func aRepeatedUnknownMemberIsRefused() {
        let text = #"{"type":"t","challenge":"c","origin":"o","x":"1","x":"2"}"#
        #expect(Self.plain(text) == nil)
        #expect(Self.general(text) == nil)
    }
}
