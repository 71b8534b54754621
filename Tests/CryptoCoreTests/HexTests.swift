import CryptoCore
import Foundation
import Testing

@Suite("Lower-case hex (RFC 4648 §8)")
struct HexTests {
    @Test func everyByteMatchesFoundationsFormatting() {
        let bytes = (0...255).map(UInt8.init)
        #expect(Hex.encode(bytes) == bytes.map { String(format: "%02x", $0) }.joined())
    }

    @Test func emptyAndSlices() {
        #expect(Hex.encode([UInt8]()) == "")
        #expect(Hex.encode([0x00, 0x0F, 0xA0, 0xFF][1...2]) == "0fa0")
    }
}
