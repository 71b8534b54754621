import CryptoCore
import Foundation
import OpenIDConnect
import Testing

/// Reading an issuer's JWKS: RSA and P-256 signing keys, other keys ignored, every malformed document refused.
@Suite struct IssuerKeySetTests {
    let provider = TestProvider.shared

    private func code(_ json: String) -> OpenIDConnectError.Code? {
        do {
            _ = try IssuerKeySet(json: Array(json.utf8))
            return nil
        } catch {
            return error.code
        }
    }

    private func rsaMember(kid: String = "k", extra: String = "") throws -> String {
        let components = try provider.rsa.publicKey.rsaComponents()
        return
            #"{"kty":"RSA","kid":"\#(kid)","n":"\#(Base64URL.encode(components.modulus))","e":"\#(Base64URL.encode(components.exponent))"\#(extra)}"#
    }

    @Test func readsBothKindsOfKey() throws {
        let set = try provider.keySet()
        #expect(set.keys.map(\.keyID) == ["rsa-key-1", "ec-key-1"])
        #expect(set.key(id: "rsa-key-1")?.algorithm == .rs256)
        #expect(set.key(id: "ec-key-1")?.algorithm == .es256)
        #expect(set.key(id: "absent") == nil)
    }

    @Test func keysForOtherUsesOrAlgorithmsAreIgnored() throws {
        let json =
            #"{"keys":[\#(try rsaMember(kid: "enc", extra: #","use":"enc""#)),\#(try rsaMember(kid: "ps", extra: #","alg":"PS256""#)),{"kty":"oct","kid":"h","k":"AAAA"},\#(try rsaMember(kid: "ok", extra: #","use":"sig","alg":"RS256""#))]}"#
        #expect(try IssuerKeySet(json: Array(json.utf8)).keys.map(\.keyID) == ["ok"])
    }

    @Test func malformedDocumentsAreRefused() throws {
        #expect(code("") == .jwksMalformed)
        #expect(code("[]") == .jwksMalformed)
        #expect(code(#"{"keys":{}}"#) == .jwksMalformed)
        #expect(code(#"{"keys":[1]}"#) == .jwksMalformed)
        #expect(code(#"{"keys":[]}"#) == .jwksMalformed)
        #expect(code(#"{"keys":[{"kty":"oct","kid":"h","k":"AAAA"}]}"#) == .jwksMalformed)
        #expect(code(#"{"keys":[],"keys":[]}"#) == .jwksMalformed)
        #expect(code(#"{"keys":[{"kty":"RSA","kid":"k","n":"AQAB","e":"AQAB"}]}"#) == .jwksMalformed)
        #expect(code(#"{"keys":[{"kty":"RSA","kid":"k","n":"***","e":"AQAB"}]}"#) == .jwksMalformed)
        #expect(code(#"{"keys":[{"kty":"EC","crv":"P-256","kid":"k","x":"AAAA","y":"AAAA"}]}"#) == .jwksMalformed)
        #expect(code(#"{"keys":[\#(try rsaMember(kid: ""))]}"#) == .jwksMalformed)
        #expect(code(#"{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}"#) == .jwksMalformed)
        #expect(code(#"{"keys":[\#(try rsaMember(kid: "d")),\#(try rsaMember(kid: "d"))]}"#) == .jwksMalformed)
        #expect(code(String(repeating: " ", count: IssuerKeySet.maximumDocumentLength + 1)) == .jwksMalformed)
    }

    @Test func smallRSAKeysAreRefused() throws {
        let small = try PrivateKey.generateRSA(bits: 1024).publicKey().rsaComponents()
        let json = #"{"keys":[{"kty":"RSA","kid":"s","n":"\#(Base64URL.encode(small.modulus))","e":"\#(Base64URL.encode(small.exponent))"}]}"#
        #expect(code(json) == .jwksMalformed)
    }
}
