import CryptoCore
import Testing

@Suite("AES-256-GCM sealing")
struct AuthenticatedEncryptionTests {
    /// Always returns zero bytes, so that a known-answer vector can pin the nonce.
    struct ZeroRandom: RandomSource {
        func bytes(count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }
    }

    static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { offset in
            let start = text.index(text.startIndex, offsetBy: offset)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    /// McGrew and Viega, "The Galois/Counter Mode of Operation", test case 14 (AES-256, zero key, IV and block).
    @Test func matchesTheGCMSpecificationVector() throws {
        let sealing = try AuthenticatedEncryption(key: [UInt8](repeating: 0, count: 32), random: ZeroRandom())
        let sealed = try sealing.seal([UInt8](repeating: 0, count: 16))
        #expect(
            sealed == [UInt8](repeating: 0, count: 12) + Self.hex("cea7403d4d606b6e074ec5d3baf39d18") + Self.hex("d0d1c8a799996bf0265b98b5d48ab919")
        )
        #expect(try sealing.open(sealed) == [UInt8](repeating: 0, count: 16))
    }

    @Test func roundTripsWithAFreshNonceEachTime() throws {
        let sealing = try AuthenticatedEncryption(key: SystemRandom().bytes(count: 32))
        let message = Array("refresh-token-value".utf8)
        let first = try sealing.seal(message, associatedData: Array("subject".utf8))
        let second = try sealing.seal(message, associatedData: Array("subject".utf8))
        #expect(first != second)
        #expect(try sealing.open(first, associatedData: Array("subject".utf8)) == message)
        #expect(try sealing.open(try sealing.seal([])) == [])
    }

    @Test func refusesAlteredTruncatedOrForeignValues() throws {
        let sealing = try AuthenticatedEncryption(key: SystemRandom().bytes(count: 32))
        let sealed = try sealing.seal(Array("secret".utf8), associatedData: [1])
        var altered = sealed
        altered[14] ^= 1
        let other = try AuthenticatedEncryption(key: SystemRandom().bytes(count: 32))
        for (value, context, key) in [
            (altered, [UInt8]([1]), sealing), (Array(sealed.prefix(27)), [1], sealing), (sealed, [2], sealing), (sealed, [1], other),
        ] {
            #expect(throws: CryptoError(.decryptionFailed, "the sealed value is altered, truncated or under another key")) {
                try key.open(value, associatedData: context)
            }
        }
        #expect(throws: CryptoError.self) { try AuthenticatedEncryption(key: [1, 2, 3]) }
    }
}
