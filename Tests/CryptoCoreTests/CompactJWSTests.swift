import CryptoCore
import Foundation
import Testing

/// The compact serialization is parsed strictly; every deviation is `crypto.malformedJWS`.
@Suite struct CompactJWSTests {
    static let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"K1","typ":"JWT"}"#.utf8))
    static let payload = Base64URL.encode(Array(#"{"sub":"001234.abc.0001"}"#.utf8))
    static let signature = Base64URL.encode([1, 2, 3, 4, 5])

    private func code(_ text: String) -> CryptoError.Code? {
        do {
            _ = try CompactJWS(text, maximumLength: 16_384)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func wellFormedTokenIsParsed() throws {
        let jws = try CompactJWS("\(Self.header).\(Self.payload).\(Self.signature)")
        #expect(jws.header.alg == "RS256")
        #expect(jws.header.kid == "K1")
        #expect(jws.header.typ == "JWT")
        #expect(jws.payload == Array(#"{"sub":"001234.abc.0001"}"#.utf8))
        #expect(jws.signature == [1, 2, 3, 4, 5])
        #expect(jws.signingInput == Array("\(Self.header).\(Self.payload)".utf8))
    }

    @Test func emptySignatureIsParsed() throws {
        #expect(try CompactJWS("\(Self.header).\(Self.payload).").signature.isEmpty)
    }

    @Test(arguments: [
        "", ".", "..", "...",
        "\(header).\(payload)",
        "\(header).\(payload).\(signature).\(signature)",
        "\(header).\(payload).\(signature).",
        "\(header)\(payload)\(signature)",
    ])
    func wrongNumberOfPartsIsMalformed(text: String) {
        #expect(code(text) == .malformedJWS)
    }

    @Test func paddingAndForeignCharactersAreMalformed() {
        let padded = Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8)) + "="
        #expect(code("\(padded).\(Self.payload).\(Self.signature)") == .malformedJWS)
        #expect(code("\(Self.header).\(Self.payload).\(Self.signature)==") == .malformedJWS)
        #expect(code("\(Self.header).\(Self.payload).AQID+A") == .malformedJWS)
        #expect(code("\(Self.header).\(Self.payload).AQID/A") == .malformedJWS)
        #expect(code(" \(Self.header).\(Self.payload).\(Self.signature)") == .malformedJWS)
        #expect(code("\(Self.header).\(Self.payload).\(Self.signature)\n") == .malformedJWS)
        #expect(code("\(Self.header).\(Self.payload).A") == .malformedJWS)
        #expect(code("\(Self.header).\(Self.payload).AQ€") == .malformedJWS)
    }

    /// Unused trailing bits must be zero, so a part has exactly one accepted text.
    @Test func nonCanonicalBase64IsMalformed() {
        #expect(code("\(Self.header).\(Self.payload).AR") == .malformedJWS)
        #expect(code("\(Self.header).\(Self.payload).AQ") == nil)
    }

    @Test(arguments: ["not json", "[]", #"["alg","RS256"]"#, "\"RS256\"", "42", "", #"{"alg":"RS256""#])
    func headerThatIsNotAJSONObjectIsMalformed(header: String) {
        #expect(code("\(Base64URL.encode(Array(header.utf8))).\(Self.payload).\(Self.signature)") == .malformedJWS)
    }

    @Test(arguments: [
        "{}", #"{"alg":256}"#, #"{"alg":null}"#, #"{"alg":"RS256","kid":5}"#, #"{"alg":"RS256","typ":["JWT"]}"#,
        #"{"alg":"RS256","crit":["exp"],"exp":1}"#, #"{"alg":"RS256","crit":[]}"#,
    ])
    func headerWithoutAUsableAlgorithmIsMalformed(header: String) {
        #expect(code("\(Base64URL.encode(Array(header.utf8))).\(Self.payload).\(Self.signature)") == .malformedJWS)
    }

    @Test(arguments: ["[]", #"["sub"]"#, "\"claims\"", "42", "null", "true", "", "not json", #"{"sub":"a""#])
    func payloadThatIsNotAJSONObjectIsMalformed(payload: String) {
        #expect(code("\(Self.header).\(Base64URL.encode(Array(payload.utf8))).\(Self.signature)") == .malformedJWS)
    }

    @Test func hugeInputIsMalformed() {
        let claims = Base64URL.encode(Array(#"{"filler":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 16_384) + Array(#""}"#.utf8))
        #expect(code("\(Self.header).\(claims).\(Self.signature)") == .malformedJWS)
        #expect(code(String(repeating: ".", count: 1_000_000)) == .malformedJWS)
    }
}
