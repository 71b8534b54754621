import CBOR
import Testing

@Suite struct CBORValueTests {
    @Test(arguments: [
        (Int64(0), CBORValue.unsigned(0)),
        (1, .unsigned(1)),
        (-1, .negative(0)),
        (-24, .negative(23)),
        (.max, .unsigned(UInt64(Int64.max))),
        (.min, .negative(UInt64(Int64.max))),
    ])
    func integerInitialiserAndIntegerValueAgree(integer: Int64, value: CBORValue) {
        #expect(CBORValue(integer) == value)
        #expect(value.integerValue == integer)
    }

    @Test(arguments: [CBORValue.unsigned(UInt64(Int64.max) + 1), .negative(UInt64(Int64.max) + 1), .negative(.max), .float(1), .text("1")])
    func integerValueIsNilOutsideInt64(value: CBORValue) {
        #expect(value.integerValue == nil)
    }

    @Test func typedAccessorsMatchOnlyTheirCase() {
        let values: [CBORValue] = [.bytes([1]), .text("a"), .array([.null]), .map([]), .unsigned(1)]
        #expect(values.compactMap(\.bytesValue) == [[1]])
        #expect(values.compactMap(\.textValue) == ["a"])
        #expect(values.compactMap(\.arrayValue) == [[.null]])
        #expect(values.compactMap(\.mapValue) == [[]])
    }

    @Test func mapSubscriptsLookUpByValueIntegerAndText() {
        let map = CBORValue.map([
            CBORMapEntry(key: .unsigned(1), value: .text("one")),
            CBORMapEntry(key: .negative(0), value: .text("minus one")),
            CBORMapEntry(key: .text("fmt"), value: .text("packed")),
            CBORMapEntry(key: .bytes([7]), value: .null),
        ])
        #expect(map[1] == .text("one"))
        #expect(map[-1] == .text("minus one"))
        #expect(map[2] == nil)
        #expect(map["fmt"] == .text("packed"))
        #expect(map["FMT"] == nil)
        #expect(map[.bytes([7])] == .null)
        #expect(map[.text("fmt")] == .text("packed"))
    }

    @Test func subscriptsOnNonMapsAreNil() {
        let array = CBORValue.array([.unsigned(1), .unsigned(2)])
        #expect(array[1] == nil)
        #expect(array["a"] == nil)
        #expect(array[.unsigned(1)] == nil)
    }

    @Test func errorDescriptionCombinesCodeAndReason() throws {
        do {
            _ = try CBORDecoder().decode([0x00, 0x00])
            Issue.record("trailing bytes were accepted")
        } catch {
            #expect(error.code == .trailingBytes)
            #expect(error.description == "cbor.trailingBytes: \(error.reason)")
        }
    }
}
