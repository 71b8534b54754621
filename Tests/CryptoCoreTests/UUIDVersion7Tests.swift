import CryptoCore
import Foundation
import Testing

@Suite("Time-ordered UUIDs (version 7, RFC 9562 §5.7)")
struct UUIDVersion7Tests {
    /// Hands out fixed bytes, so that the random fields are known.
    struct ReplayedRandom: RandomSource {
        let replayed: [UInt8]
        func bytes(count: Int) -> [UInt8] { Array(replayed.prefix(count)) }
    }

    @Test func matchesTheExampleOfAppendixA6() {
        // RFC 9562 Appendix A.6: "Tuesday, February 22, 2022 2:22:22.00 PM GMT-05:00" gives unix_ts_ms 0x017F22E279B0;
        // with rand_a 0xCC3 and rand_b 0x18C4DC0C0C07398F the UUID is 017F22E2-79B0-7CC3-98C4-DC0C0C07398F.
        let random = ReplayedRandom(replayed: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0C, 0xC3, 0x18, 0xC4, 0xDC, 0x0C, 0x0C, 0x07, 0x39, 0x8F])
        let uuid = random.uuidVersion7(at: Date(timeIntervalSince1970: 1_645_557_742))
        #expect(uuid.uuidString == "017F22E2-79B0-7CC3-98C4-DC0C0C07398F")
    }

    @Test func setsTheVersionAndVariantWhateverTheRandomBytes() {
        for byte: UInt8 in [0x00, 0xFF, 0x5A] {
            let uuid = ReplayedRandom(replayed: Array(repeating: byte, count: 16)).uuidVersion7(at: Date(timeIntervalSince1970: 1))
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            // RFC 9562 §5.7: "ver: The 4-bit version field ... set to 0b0111 (7)"; "var: The 2-bit variant field ... 10".
            #expect(bytes[6] >> 4 == 0x7)
            #expect(bytes[8] >> 6 == 0b10)
            // unix_ts_ms: 1000 milliseconds, big-endian in the first 48 bits; the random bits stay as given.
            #expect(Array(bytes[0..<6]) == [0, 0, 0, 0, 0x03, 0xE8])
            #expect(
                bytes[6] & 0x0F == byte & 0x0F && bytes[7] == byte && bytes[8] & 0x3F == byte & 0x3F
                    && Array(bytes[9...]) == Array(repeating: byte, count: 7)
            )
        }
    }

    @Test func laysOutGivenRandomBytesAsAppendixA6Does() {
        // The layout the session IDs use, on the bytes of the example above (not through `uuidVersion7`, which calls it).
        let random: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0C, 0xC3, 0x18, 0xC4, 0xDC, 0x0C, 0x0C, 0x07, 0x39, 0x8F]
        let expected: [UInt8] = [0x01, 0x7F, 0x22, 0xE2, 0x79, 0xB0, 0x7C, 0xC3, 0x98, 0xC4, 0xDC, 0x0C, 0x0C, 0x07, 0x39, 0x8F]
        #expect(UUIDVersion7.bytes(random: random, at: Date(timeIntervalSince1970: 1_645_557_742)) == expected)
    }

    @Test func ordersByMillisecondAndClampsTheTimestamp() {
        let random = SystemRandom()
        let earlier = random.uuidVersion7(at: Date(timeIntervalSince1970: 1_800_000_000.001))
        let later = random.uuidVersion7(at: Date(timeIntervalSince1970: 1_800_000_000.002))
        #expect(earlier.uuidString.prefix(13) < later.uuidString.prefix(13))
        #expect(random.uuidVersion7(at: .distantPast).uuidString.hasPrefix("00000000-0000-7"))
        #expect(random.uuidVersion7(at: Date(timeIntervalSince1970: 300_000_000_000)).uuidString.hasPrefix("FFFFFFFF-FFFF-7"))
        #expect(random.uuidVersion7(at: .distantPast) != random.uuidVersion7(at: .distantPast))
    }
}
