import CryptoCore
import Foundation
import Synchronization
import Testing

/// Signing JWSs for access tokens: each algorithm's signature verifies with the public key and its JWK, ES256 is
/// raw r || s, the header is exactly alg, kid and typ, and the wrong key or key ID is refused.
@Suite struct JWSSigningTests {
    @Test(arguments: JWSAlgorithm.allCases)
    func aSignedTokenVerifiesWithItsJWK(algorithm: JWSAlgorithm) throws {
        let key = try JWSSigningKey(privateKey: try algorithm.generateKey(), algorithm: algorithm, keyID: "key-1_A")
        let payload = Array(#"{"sub":"alice","n":1}"#.utf8)
        let token = try CompactJWS.sign(payload: payload, type: "at+jwt", with: key)
        let parsed = try CompactJWS(token)
        #expect(parsed.header.alg == algorithm.rawValue)
        #expect(parsed.header.kid == "key-1_A")
        #expect(parsed.header.typ == "at+jwt")
        #expect(parsed.payload == payload)
        let header = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"\#(algorithm.rawValue)","kid":"key-1_A","typ":"at+jwt"}"#)
        let jwk = try key.jwk()
        #expect(jwk.kid == "key-1_A" && jwk.alg == algorithm.rawValue && jwk.use == "sig")
        let rebuilt = try jwk.publicKey()
        #expect(rebuilt.matches(key.publicKey))
        #expect(parsed.verifySignature(with: rebuilt, allowedAlgorithms: [algorithm.rawValue]))
        // A single changed byte of the payload, or another key, does not verify.
        var tampered = Array(token.utf8)
        tampered[tampered.firstIndex(of: UInt8(ascii: "."))! + 2] ^= 0x01
        if let altered = try? CompactJWS(String(decoding: tampered, as: UTF8.self)) {
            #expect(!altered.verifySignature(with: rebuilt))
        }
        let other = try JWSSigningKey(privateKey: try algorithm.generateKey(), algorithm: algorithm, keyID: "key-2")
        #expect(!parsed.verifySignature(with: other.publicKey))
    }

    @Test func es256SignaturesAreRawAndEdDSASignaturesAre64Bytes() throws {
        for (algorithm, length) in [(JWSAlgorithm.es256, 64), (.edDSA, 64), (.rs256, 256)] {
            let key = try JWSSigningKey(privateKey: try algorithm.generateKey(), algorithm: algorithm, keyID: "k")
            for _ in 0..<20 {
                #expect(try key.sign(Array("header.payload".utf8)).count == length, "\(algorithm)")
            }
        }
    }

    /// Threads sharing one ES256 key (its one `EC_KEY`, read by every signature) each get signatures that verify and
    /// are low-S, every one different (a fresh nonce each).
    @Test func threadsSharingAnES256KeyGetValidLowSSignatures() throws {
        let key = try JWSSigningKey(privateKey: try JWSAlgorithm.es256.generateKey(), algorithm: .es256, keyID: "k")
        let message = Array("header.payload".utf8)
        let signatures = Mutex([[UInt8]]())
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let mine = (0..<100).compactMap { _ in try? key.sign(message) }
            signatures.withLock { $0 += mine }
        }
        let all = signatures.withLock { $0 }
        #expect(all.count == 800)
        #expect(Set(all).count == all.count)
        for raw in all {
            let der = try #require(ECDSASignatureEncoding.derEncoded(raw: raw, curve: .p256))
            #expect(key.publicKey.verify(signature: der, message: message, algorithm: .ecdsaSHA256))
            #expect(ECDSASignatureEncoding.isLowS(raw: raw, curve: .p256))
        }
    }

    @Test func theKeyMustMatchTheAlgorithmAndTheKeyIDBeBase64URL() throws {
        let ec = try PrivateKey.generateEC(.p256)
        #expect(throws: CryptoError.self) { try JWSSigningKey(privateKey: ec, algorithm: .rs256, keyID: "k") }
        #expect(throws: CryptoError.self) { try JWSSigningKey(privateKey: ec, algorithm: .edDSA, keyID: "k") }
        #expect(throws: CryptoError.self) { try JWSSigningKey(privateKey: try PrivateKey.generateEC(.p384), algorithm: .es256, keyID: "k") }
        #expect(throws: CryptoError.self) { try JWSSigningKey(privateKey: try PrivateKey.generateRSA(bits: 1024), algorithm: .rs256, keyID: "k") }
        for keyID in ["", "a\"b", "a.b", "a b", String(repeating: "a", count: 129)] {
            #expect(throws: CryptoError.self, "\(keyID)") { try JWSSigningKey(privateKey: ec, algorithm: .es256, keyID: keyID) }
        }
    }

    @Test func jwksHaveTheMembersOfTheirKeyType() throws {
        let members: (JWSAlgorithm) throws -> [String: String] = { algorithm in
            let jwk = try JWSSigningKey(privateKey: try algorithm.generateKey(), algorithm: algorithm, keyID: "k").jwk()
            let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(jwk)) as? [String: String]
            return try #require(json)
        }
        let ec = try members(.es256)
        #expect(Set(ec.keys) == ["kty", "crv", "x", "y", "kid", "alg", "use"])
        #expect(ec["kty"] == "EC" && ec["crv"] == "P-256" && Base64URL.decode(ec["x"]!)?.count == 32 && Base64URL.decode(ec["y"]!)?.count == 32)
        let okp = try members(.edDSA)
        #expect(Set(okp.keys) == ["kty", "crv", "x", "kid", "alg", "use"])
        #expect(okp["kty"] == "OKP" && okp["crv"] == "Ed25519" && Base64URL.decode(okp["x"]!)?.count == 32)
        let rsa = try members(.rs256)
        #expect(Set(rsa.keys) == ["kty", "n", "e", "kid", "alg", "use"])
        #expect(rsa["kty"] == "RSA" && rsa["e"] == "AQAB" && Base64URL.decode(rsa["n"]!)?.count == 256)
    }

    @Test func aJWKWhoseMembersDisagreeIsRefused() throws {
        let jwk = try JWSSigningKey(privateKey: try JWSAlgorithm.es256.generateKey(), algorithm: .es256, keyID: "k").jwk()
        var json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(jwk)) as? [String: String])
        for (member, value) in [("alg", "EdDSA"), ("alg", "HS256"), ("crv", "P-384"), ("use", "enc"), ("kty", "RSA"), ("x", "AAAA")] {
            var altered = json
            altered[member] = value
            let decoded = try JSONDecoder().decode(PublicKeyJWK.self, from: JSONSerialization.data(withJSONObject: altered))
            #expect(throws: CryptoError.self, "\(member)=\(value)") { try decoded.publicKey() }
        }
        json["y"] = nil
        let missing = try JSONDecoder().decode(PublicKeyJWK.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(throws: CryptoError.self) { try missing.publicKey() }
    }

    /// RFC 5869 appendix A, test cases 1 and 3.
    @Test func hkdfMatchesRFC5869() throws {
        let okm1 = try KeyDerivation.hkdfSHA256(
            secret: [UInt8](repeating: 0x0B, count: 22),
            salt: Self.bytes("000102030405060708090a0b0c"),
            info: Self.bytes("f0f1f2f3f4f5f6f7f8f9"),
            length: 42
        )
        #expect(Hex.encode(okm1) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        let okm3 = try KeyDerivation.hkdfSHA256(secret: [UInt8](repeating: 0x0B, count: 22), info: [], length: 42)
        #expect(Hex.encode(okm3) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
        #expect(throws: CryptoError.self) { try KeyDerivation.hkdfSHA256(secret: [], info: [], length: 32) }
    }

    private static func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
    }
}
