import AppleSignIn
import CryptoCore
import Testing

/// Tokens that are not a well-formed compact JWS are `appleToken.malformed`, whatever the parser's reason.
@Suite struct IdentityTokenMalformedTests {
    static let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"K1","typ":"JWT"}"#.utf8))
    static let payload = Base64URL.encode(Array(#"{"sub":"001234.abc.0001"}"#.utf8))
    static let signature = Base64URL.encode([1, 2, 3, 4, 5])

    @Test func verifierReportsMalformedTokens() throws {
        let verifier = TestIssuer.verifier()
        let keys = try TestIssuer.shared.keySet()
        for text in ["", "a.b", "a.b.c.d", "\(Self.header).\(Self.payload).\(Self.signature)="] {
            do {
                _ = try verifier.verify(text, keys: keys, nonce: .optional)
                Issue.record("\(text) verified")
            } catch {
                #expect(error.code == .appleTokenMalformed)
            }
        }
    }

    @Test func tokensLongerThanTheLimitAreMalformed() throws {
        let filler = Base64URL.encode(
            Array(#"{"filler":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: IdentityTokenVerifier.maximumTokenLength) + Array(#""}"#.utf8)
        )
        let verifier = TestIssuer.verifier()
        let keys = try TestIssuer.shared.keySet()
        do {
            _ = try verifier.verify("\(Self.header).\(filler).\(Self.signature)", keys: keys, nonce: .optional)
            Issue.record("an oversized token verified")
        } catch {
            #expect(error.code == .appleTokenMalformed)
        }
    }
}
