import CryptoCore
import Testing

/// `PublicKey.verify(signature:over:_:algorithm:)` hashes the two parts on the stack: it must accept exactly the
/// signatures over their concatenation, for every scheme (the prehashing ones and EdDSA).
@Suite struct PublicKeyTwoPartVerificationTests {
    static let keys: [(PrivateKey, [SignatureAlgorithm])] = [
        (try! PrivateKey.generateEC(.p256), [.ecdsaSHA256]),
        (try! PrivateKey.generateEC(.p384), [.ecdsaSHA384]),
        (try! PrivateKey.generateRSA(bits: 2048), [.rsaPKCS1SHA1, .rsaPKCS1SHA256, .rsaPKCS1SHA512, .rsaPSSSHA384]),
        (try! PrivateKey.generateEdwards(.ed25519), [.ed25519]),
    ]

    @Test func acceptsASignatureOverTheConcatenationAndNothingElse() throws {
        let first = [UInt8](repeating: 0x49, count: 37)
        let second = [UInt8](repeating: 0x96, count: 32)
        for (privateKey, algorithms) in Self.keys {
            let publicKey = try privateKey.publicKey()
            for algorithm in algorithms {
                let signature = try privateKey.sign(first + second, algorithm: algorithm)
                #expect(publicKey.verify(signature: signature, over: first, second, algorithm: algorithm), "\(algorithm)")
                // The same bytes split elsewhere are the same message.
                #expect(
                    publicKey.verify(signature: signature, over: Array(first.prefix(5)), Array(first.dropFirst(5)) + second, algorithm: algorithm)
                )
                var changed = second
                changed[31] ^= 1
                #expect(!publicKey.verify(signature: signature, over: first, changed, algorithm: algorithm), "\(algorithm)")
                var forged = signature
                forged[forged.count / 2] ^= 0x40
                #expect(!publicKey.verify(signature: forged, over: first, second, algorithm: algorithm), "\(algorithm)")
            }
        }
    }

    @Test func refusesAnAlgorithmOfAnotherKeyType() throws {
        let privateKey = try PrivateKey.generateEC(.p256)
        let signature = try privateKey.sign([1, 2, 3], algorithm: .ecdsaSHA256)
        #expect(!(try privateKey.publicKey()).verify(signature: signature, over: [1], [2, 3], algorithm: .rsaPKCS1SHA256))
    }
}
