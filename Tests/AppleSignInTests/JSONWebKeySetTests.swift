import AppleSignIn
import CryptoCore
import Foundation
import Testing

/// Apple's JWKS is parsed into RSA signing keys; anything ambiguous or unusable is `jwks.malformed`.
@Suite struct JSONWebKeySetTests {
    let issuer = TestIssuer.shared

    private func code(_ document: Any) throws -> AppleSignInError.Code? {
        do {
            _ = try JSONWebKeySet(json: try TestIssuer.json(document))
            return nil
        } catch let error as AppleSignInError {
            return error.code
        }
    }

    private func primaryJWK() throws -> [String: Any] {
        try TestIssuer.jwk(issuer.primary, id: TestIssuer.primaryKeyID)
    }

    @Test func appleStyleSetIsParsed() throws {
        let keys = try issuer.keySet()
        #expect(keys.keys.map(\.keyID) == [TestIssuer.primaryKeyID, TestIssuer.secondaryKeyID])
        #expect(try keys.key(id: TestIssuer.primaryKeyID)?.publicKey.matches(issuer.primary.publicKey()) == true)
        #expect(try keys.key(id: TestIssuer.secondaryKeyID)?.publicKey.matches(issuer.secondary.publicKey()) == true)
        #expect(keys.key(id: "NOTINJWKS") == nil)
        #expect(keys.key(id: "") == nil)
    }

    @Test func keysThatCannotVerifyRS256AreIgnored() throws {
        let ecKey = try PrivateKey.generateEC(.p256).publicKey().ecCoordinates()
        let ec: [String: Any] = [
            "kty": "EC", "kid": "EC1", "crv": "P-256", "use": "sig", "x": Base64URL.encode(ecKey.x), "y": Base64URL.encode(ecKey.y),
        ]
        var encryption = try TestIssuer.jwk(issuer.secondary, id: "ENC1")
        encryption["use"] = "enc"
        var otherAlgorithm = try TestIssuer.jwk(issuer.secondary, id: "RS512KEY")
        otherAlgorithm["alg"] = "RS512"
        let symmetric: [String: Any] = ["kty": "oct", "kid": "HMAC1", "k": "c2VjcmV0"]
        let keys = try JSONWebKeySet(json: TestIssuer.json(["keys": [ec, primaryJWK(), encryption, otherAlgorithm, symmetric]]))
        #expect(keys.keys.map(\.keyID) == [TestIssuer.primaryKeyID])
    }

    /// A JWK without use or alg is still an RSA signing key.
    @Test func useAndAlgorithmAreOptional() throws {
        var bare = try primaryJWK()
        bare["use"] = nil
        bare["alg"] = nil
        #expect(try JSONWebKeySet(json: TestIssuer.json(["keys": [bare]])).key(id: TestIssuer.primaryKeyID) != nil)
    }

    @Test func duplicateKeyIDIsMalformed() throws {
        var twin = try TestIssuer.jwk(issuer.secondary, id: TestIssuer.primaryKeyID)
        #expect(try code(["keys": [primaryJWK(), twin]]) == .jwksMalformed)
        #expect(try code(["keys": [primaryJWK(), primaryJWK()]]) == .jwksMalformed)
        twin["kty"] = "EC"
        #expect(try code(["keys": [primaryJWK(), twin]]) == .jwksMalformed)
        let first = try JSONWebKey(keyID: "SAME", publicKey: issuer.primary.publicKey())
        let second = try JSONWebKey(keyID: "SAME", publicKey: issuer.secondary.publicKey())
        #expect(throws: AppleSignInError(.jwksMalformed, "kid SAME appears more than once")) { try JSONWebKeySet(keys: [first, second]) }
    }

    @Test func documentThatIsNotAKeySetIsMalformed() throws {
        #expect(try code([String: Any]()) == .jwksMalformed)
        #expect(try code(["keys": "none"]) == .jwksMalformed)
        #expect(try code(["keys": [String]()]) == .jwksMalformed)
        #expect(try code(["keys": ["not an object"]]) == .jwksMalformed)
        #expect(try code([primaryJWK()]) == .jwksMalformed)
        #expect(throws: AppleSignInError.self) { try JSONWebKeySet(json: Array("not json".utf8)) }
        #expect(throws: AppleSignInError.self) { try JSONWebKeySet(json: Array(repeating: 0x20, count: JSONWebKeySet.maximumDocumentLength + 1)) }
    }

    @Test func setWithoutAnRSASigningKeyIsMalformed() throws {
        var encryption = try primaryJWK()
        encryption["use"] = "enc"
        #expect(try code(["keys": [encryption]]) == .jwksMalformed)
    }

    @Test func rsaKeyWithBadMembersIsMalformed() throws {
        let edits: [(String, Any?)] = [
            ("kty", nil), ("kid", nil), ("n", nil), ("e", nil), ("kid", 7), ("n", "AQAB="),
            ("n", "not+base64/url"), ("e", ""), ("n", "AQAB"), ("kid", ""),
        ]
        for (member, value) in edits {
            var key = try primaryJWK()
            key[member] = value
            #expect(try code(["keys": [key]]) == .jwksMalformed, "\(member)")
        }
    }

    @Test func shortRSAKeyIsMalformed() throws {
        let short = try PrivateKey.generateRSA(bits: 1024)
        #expect(try code(["keys": [TestIssuer.jwk(short, id: "SHORT")]]) == .jwksMalformed)
        #expect(throws: AppleSignInError.self) { try JSONWebKey(keyID: "EC", publicKey: PrivateKey.generateEC(.p256).publicKey()) }
    }
}
