import Testing
import WebAuthnCore

/// §5.8.1 / RFC 8259: client data is read by a strict JSON parser. Each row is a client data text and whether it
/// must parse; the accepted ones must also yield the expected origin.
@Suite("RFC 8259 strictness of the client data parser")
struct ClientDataJSONStrictnessTests {
    static let accepted: [(String, String)] = [
        (#"{"type":"t","challenge":"c","origin":"https:\/\/example.com"}"#, "https://example.com"),
        (" \t\r\n{\"type\" : \"t\" , \"challenge\":\"c\",\"origin\":\"o\"}\n", "o"),
        (#"{"type":"t","challenge":"c","origin":"\u00e9\ud83d\ude00"}"#, "é😀"),
        (#"{"type":"t","challenge":"c","origin":"a\"b\\c\/d\b\f\n\r\t"}"#, "a\"b\\c/d\u{8}\u{c}\n\r\t"),
        (#"{"type":"t","challenge":"c","origin":"o","n":[-0,1.5e3,2E-2,0.25,{"x":[true,false,null]}]}"#, "o"),
        (#"{"type":"t","challenge":"c","origin":"o","crossOrigin":null}"#, "o"),
    ]

    static let refused: [String] = [
        #"{"type":"t","challenge":"c","origin":"o"} x"#,
        #"{"type":"t","challenge":"c","origin":"o",}"#,
        #"{"type":"t","challenge":"c","origin":"o""#,
        #"{'type':"t","challenge":"c","origin":"o"}"#,
        #"{"type":"t","challenge":"c","origin":"\ud83d"}"#,
        #"{"type":"t","challenge":"c","origin":"\ude00"}"#,
        #"{"type":"t","challenge":"c","origin":"\x41"}"#,
        #"{"type":"t","challenge":"c","origin":"o","n":01}"#,
        #"{"type":"t","challenge":"c","origin":"o","n":1.}"#,
        #"{"type":"t","challenge":"c","origin":"o","n":.5}"#,
        #"{"type":"t","challenge":"c","origin":"o","n":+1}"#,
        #"{"type":"t","challenge":"c","origin":"o","n":NaN}"#,
        #"{"type":"t","challenge":"c","origin":"o","n":tru}"#,
        "{\"type\":\"t\",\"challenge\":\"c\",\"origin\":\"a\u{1}b\"}",
        #"{"type":"t","challenge":"c","origin":"o","d":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
        #"["type","t"]"#,
        "",
    ]

    @Test(arguments: accepted)
    func accepts(_ text: String, origin: String) throws {
        #expect(try CollectedClientData(bytes: Array(text.utf8)).origin == origin)
    }

    @Test(arguments: refused)
    func refuses(_ text: String) {
        #expect(throws: WebAuthnError.self) { try CollectedClientData(bytes: Array(text.utf8)) }
    }

    @Test func byteOrderMarkIsRemoved() throws {
        let text = [0xEF, 0xBB, 0xBF] + Array(#"{"type":"t","challenge":"c","origin":"o"}"#.utf8)
        #expect(try CollectedClientData(bytes: text).origin == "o")
    }
}
