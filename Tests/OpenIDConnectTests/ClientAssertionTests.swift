import CryptoCore
import Foundation
import OpenIDConnect
import TestSupport
import Testing

/// `private_key_jwt` (OpenID Connect Core §9, RFC 7523): the assertion's header and claims, and its signature under
/// the configured key; keys that cannot sign an assertion are refused.
@Suite struct ClientAssertionTests {
    static let tokenEndpoint = "https://id.example.com/oauth2/token"

    private func claims(of token: String) throws -> [String: Any] {
        let jws = try CompactJWS(token)
        return try #require(try JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any])
    }

    @Test(arguments: [JWSAlgorithm.es256, .rs256])
    func claimsAndSignature(algorithm: JWSAlgorithm) throws {
        let privateKey = try algorithm.generateKey()
        let key = try ClientAssertion.signingKey(pem: try privateKey.pem(), keyID: "key-1")
        #expect(key.algorithm == algorithm)
        let clock = ManualClock()
        let assertion = try ClientAssertion(clientID: "passkeyd", audience: Self.tokenEndpoint, key: key, random: SystemRandom(), time: clock)
        let jws = try CompactJWS(assertion.token)
        #expect(jws.header.alg == algorithm.rawValue && jws.header.kid == "key-1")
        #expect(jws.verifySignature(with: try privateKey.publicKey(), allowedAlgorithms: [algorithm.rawValue]))
        // Another key of the same kind does not verify it.
        #expect(!jws.verifySignature(with: try algorithm.generateKey().publicKey()))
        let claims = try claims(of: assertion.token)
        #expect(claims["iss"] as? String == "passkeyd" && claims["sub"] as? String == "passkeyd")
        #expect(claims["aud"] as? String == Self.tokenEndpoint)
        let now = Int(clock.now.timeIntervalSince1970)
        #expect(claims["iat"] as? Int == now && claims["exp"] as? Int == now + 60)
        let jti = try #require(claims["jti"] as? String)
        #expect(jti.utf8.count == 43 && Base64URL.decode(jti)?.count == 32)
        #expect(ClientAssertion.assertionType == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
    }

    @Test func everyAssertionHasItsOwnJTI() throws {
        let key = try ClientAssertion.signingKey(pem: try PrivateKey.generateEC(.p256).pem(), keyID: "k")
        var seen: Set<String> = []
        for _ in 0..<20 {
            let assertion = try ClientAssertion(clientID: "c", audience: Self.tokenEndpoint, key: key, random: SystemRandom(), time: ManualClock())
            seen.insert(try #require(try claims(of: assertion.token)["jti"] as? String))
        }
        #expect(seen.count == 20)
    }

    @Test func unusableKeysAreRefused() throws {
        // Not a PEM key; a P-384 key (ES256 needs P-256); Ed25519; a short RSA key; a key ID that is no base64url.
        #expect(throws: CryptoError.self) { try ClientAssertion.signingKey(pem: "not a key", keyID: "k") }
        #expect(throws: CryptoError.self) { try ClientAssertion.signingKey(pem: try PrivateKey.generateEC(.p384).pem(), keyID: "k") }
        #expect(throws: CryptoError.self) { try ClientAssertion.signingKey(pem: try PrivateKey.generateEdwards(.ed25519).pem(), keyID: "k") }
        #expect(throws: CryptoError.self) { try ClientAssertion.signingKey(pem: try PrivateKey.generateRSA(bits: 1024).pem(), keyID: "k") }
        #expect(throws: CryptoError.self) { try ClientAssertion.signingKey(pem: try PrivateKey.generateEC(.p256).pem(), keyID: "a key") }
        #expect(throws: CryptoError.self) { try ClientAssertion.signingKey(pem: try PrivateKey.generateEC(.p256).pem(), keyID: "") }
    }
}
