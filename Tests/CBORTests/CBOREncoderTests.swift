import CBOR
import Testing

/// Values whose shortest encoding is easy to get wrong.
let shortestForms: [(value: CBORValue, encoding: String)] = [
    (.float(.nan), "f97e00"),
    (.float(Double(Float.leastNonzeroMagnitude)), "fa00000001"),
    (.float(1.0 / 3.0), "fb3fd5555555555555"),
    (.float(Double(Float(1.0 / 3.0))), "fa3eaaaaab"),
    (.float(0x1p-25), "fa33000000"),
    (.float(0x1.8p-24), "fa33c00000"),
    (.float(0x1p-15), "f90200"),
    (.float(65520), "fa477ff000"),
    (.float(-0x1.ffcp15), "f9fbff"),
    (.simple(20), "f4"),
    (.simple(24), "f818"),
    (.tagged(.max, .null), "dbfffffffffffffffff6"),
    (.bytes([UInt8](repeating: 7, count: 24)), "5818" + String(repeating: "07", count: 24)),
    (.text(String(repeating: "a", count: 256)), "790100" + String(repeating: "61", count: 256)),
    (.map([CBORMapEntry(key: .unsigned(3), value: .null), CBORMapEntry(key: .unsigned(1), value: .null)]), "a203f601f6"),
    (.array([.unsigned(UInt64(UInt32.max)), .unsigned(UInt64(UInt32.max) + 1)]), "821affffffff1b0000000100000000"),
]

@Suite struct CBOREncoderTests {
    @Test(arguments: appendixAPreferredExamples)
    func encodesPreferredSerialization(encoding: String, value: CBORValue) {
        #expect(hexString(CBOREncoder.encode(value)) == encoding)
    }

    @Test(arguments: appendixAPreferredExamples)
    func reencodesWhatItDecodes(encoding: String, value: CBORValue) throws {
        #expect(hexString(CBOREncoder.encode(try CBORDecoder().decode(hex(encoding)))) == encoding)
    }

    @Test(arguments: shortestForms)
    func encodesShortestForms(value: CBORValue, encoding: String) {
        #expect(hexString(CBOREncoder.encode(value)) == encoding)
    }

    @Test func decodeInvertsEncodeForRandomValues() throws {
        var generator = SeededGenerator(seed: 0x5EED_0004)
        for _ in 0..<2000 {
            let value = CBORValue.random(depth: 5, using: &generator)
            #expect(try CBORDecoder().decode(CBOREncoder.encode(value)) == value)
        }
    }
}
