import CryptoCore
import Testing

/// FIPS 180-4 known answers, and the two-part digest equal to the digest of the concatenation.
@Suite struct DigestAlgorithmTests {
    @Test func sha256KnownAnswers() {
        #expect(Hex.encode(DigestAlgorithm.sha256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Hex.encode(DigestAlgorithm.sha256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(DigestAlgorithm.sha256.hash(Array("abc".utf8)[...])) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test(arguments: DigestAlgorithm.allCases)
    func twoPartDigestEqualsTheDigestOfTheConcatenation(algorithm: DigestAlgorithm) {
        for (first, second) in [
            ([UInt8](), [UInt8]()), (Array("ab".utf8), Array("c".utf8)), (Array(repeating: 7, count: 100), Array(repeating: 9, count: 300)),
        ] {
            #expect(algorithm.hash(first, second) == algorithm.hash(first + second))
            #expect(algorithm.hash(first + second).count == algorithm.outputLength)
        }
    }

    @Test func otherKnownAnswers() {
        #expect(Hex.encode(DigestAlgorithm.sha1.hash(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Hex.encode(DigestAlgorithm.sha384.hash(Array("abc".utf8))).hasPrefix("cb00753f45a35e8bb5a03d699ac65007"))
        #expect(Hex.encode(DigestAlgorithm.sha512.hash(Array("abc".utf8))).hasPrefix("ddaf35a193617abacc417349ae204131"))
    }
}
