import CBOR
import Testing

/// Inputs the decoder must reject, with the code it must reject them with.
let rejectedInputs: [(encoding: String, code: CBORError.Code)] = [
    // The input ends inside an item.
    ("18", .truncated),
    ("19 01", .truncated),
    ("1b 00 00 00 00 00 00 00", .truncated),
    ("39 01", .truncated),
    ("f9 00", .truncated),
    ("fa 00 00 00", .truncated),
    ("fb 00 00 00 00 00 00 00", .truncated),
    ("f8", .truncated),
    ("c1", .truncated),
    ("d8", .truncated),
    ("82 81 01", .truncated),
    ("9f 01", .truncated),
    ("bf 01 02", .truncated),
    ("5f 41 00", .truncated),
    ("7f", .truncated),
    // A string's declared length is longer than the bytes left: reported as truncation.
    ("44 01 02", .truncated),
    ("62 61", .truncated),
    ("5a 00 01 00 00 00", .truncated),
    ("5b ff ff ff ff ff ff ff ff", .truncated),
    ("5b 80 00 00 00 00 00 00 00 00", .truncated),
    ("7b ff ff ff ff ff ff ff f8 00", .truncated),
    ("5f 5b ff ff ff ff ff ff ff ff ff", .truncated),
    // Reserved additional information, and indefinite length where there is none.
    ("1c", .malformed),
    ("1d", .malformed),
    ("1e", .malformed),
    ("1f", .malformed),
    ("3c", .malformed),
    ("3f", .malformed),
    ("5c", .malformed),
    ("7d", .malformed),
    ("9e", .malformed),
    ("be", .malformed),
    ("dc", .malformed),
    ("df 00", .malformed),
    ("fc", .malformed),
    ("fd", .malformed),
    ("fe", .malformed),
    // Simple values below 32 in the two-byte form (RFC 8949 §3.3).
    ("f8 00", .malformed),
    ("f8 14", .malformed),
    ("f8 1f", .malformed),
    // Breaks where no indefinite-length item is open.
    ("ff", .malformed),
    ("81 ff", .malformed),
    ("a1 01 ff", .malformed),
    ("9f c1 ff", .malformed),
    ("bf 01 ff", .malformed),
    // Chunks of indefinite-length strings must be definite strings of the same type.
    ("5f 01 ff", .malformed),
    ("5f 61 61 ff", .malformed),
    ("7f 41 00 ff", .malformed),
    ("5f 5f ff ff", .malformed),
    ("7f 7f ff ff", .malformed),
    ("7f 80 ff", .malformed),
    ("5f c1 40 ff", .malformed),
    // Exactly one item.
    ("00 00", .trailingBytes),
    ("a0 ff", .trailingBytes),
    ("9f ff ff", .trailingBytes),
    ("5f ff 00", .trailingBytes),
    ("", .empty),
    // Duplicate map keys, at any depth and however they were encoded.
    ("a2 01 02 01 03", .duplicateMapKey),
    ("a2 61 61 01 61 61 02", .duplicateMapKey),
    ("a2 01 00 18 01 00", .duplicateMapKey),
    ("a2 20 00 38 00 00", .duplicateMapKey),
    ("a2 81 01 00 9f 01 ff 00", .duplicateMapKey),
    ("a2 62 61 62 00 7f 61 61 61 62 ff 00", .duplicateMapKey),
    ("a2 c1 00 00 c1 00 00", .duplicateMapKey),
    ("bf 01 01 01 01 ff", .duplicateMapKey),
    ("81 81 a2 01 01 01 01", .duplicateMapKey),
    ("a1 00 a2 f6 00 f6 01", .duplicateMapKey),
    // Text must be valid UTF-8, in every chunk.
    ("61 ff", .invalidUTF8),
    ("61 80", .invalidUTF8),
    ("62 c3 28", .invalidUTF8),
    ("62 c0 af", .invalidUTF8),
    ("63 ed a0 80", .invalidUTF8),
    ("64 f4 90 80 80", .invalidUTF8),
    ("7f 61 c3 61 bc ff", .invalidUTF8),
    ("a1 61 ff 00", .invalidUTF8),
    // Declared counts the bytes left could not hold fail before anything is allocated.
    ("82 00", .tooLarge),
    ("a1 01", .tooLarge),
    ("a2 01 02 03", .tooLarge),
    ("9a 9a 9a 9a 9a", .tooLarge),
    ("9b ff ff ff ff ff ff ff ff", .tooLarge),
    ("9b 80 00 00 00 00 00 00 00", .tooLarge),
    ("9b 7f ff ff ff ff ff ff ff", .tooLarge),
    ("bb ff ff ff ff ff ff ff ff", .tooLarge),
    ("bb 40 00 00 00 00 00 00 00 00 00", .tooLarge),
    ("ba ff ff ff ff", .tooLarge),
    ("81 9a 00 10 00 00 00", .tooLarge),
]

@Suite struct CBORStrictnessTests {
    @Test(arguments: rejectedInputs)
    func rejects(encoding: String, code: CBORError.Code) {
        #expect {
            try CBORDecoder().decode(hex(encoding))
        } throws: { error in
            (error as? CBORError)?.code == code
        }
    }

    @Test func duplicateKeysInLargeMapsAreFound() throws {
        let entries = (0..<40).map { CBORMapEntry(key: .unsigned($0), value: .null) }
        let unique = CBOREncoder.encode(.map(entries))
        #expect(try CBORDecoder().decode(unique).mapValue?.count == 40)
        let duplicated = CBOREncoder.encode(.map(entries + [CBORMapEntry(key: .unsigned(7), value: .null)]))
        #expect(throws: CBORError.self) { try CBORDecoder().decode(duplicated) }
        #expect(errorCode(duplicated) == .duplicateMapKey)
    }

    @Test func equalKeysOfDifferentTypesAreNotDuplicates() throws {
        let value = try CBORDecoder().decode(hex("a4 01 00 f9 3c00 00 61 31 00 41 01 00"))
        #expect(value.mapValue?.count == 4)
    }

    @Test func inputOverTheSizeLimitIsTooLarge() {
        let decoder = CBORDecoder(limits: CBORLimits(maximumInputSize: 8))
        let input = CBOREncoder.encode(.bytes([UInt8](repeating: 0, count: 8)))
        #expect(errorCode(input, decoder: decoder) == .tooLarge)
        #expect(throws: Never.self) { try decoder.decode(CBOREncoder.encode(.bytes([UInt8](repeating: 0, count: 7)))) }
    }

    @Test(arguments: [
        ("81", 16, true), ("81", 17, false),
        ("c1", 16, true), ("c1", 17, false),
        ("9f", 16, true), ("9f", 17, false),
        ("a1 00", 16, true), ("a1 00", 17, false),
    ])
    func nestingDeeperThanTheLimitFails(opener: String, depth: Int, accepted: Bool) {
        var input = [UInt8]()
        for _ in 0..<depth { input += hex(opener) }
        input.append(0)
        if opener == "9f" { input += [UInt8](repeating: 0xFF, count: depth) }
        #expect(errorCode(input) == (accepted ? nil : .depthExceeded))
    }

    @Test func emptyContainersCountTowardsDepth() {
        let input = [UInt8](repeating: 0x81, count: 16) + [0x80]
        #expect(errorCode(input) == .depthExceeded)
        #expect(errorCode(input, decoder: CBORDecoder(limits: CBORLimits(maximumDepth: 17))) == nil)
    }

    @Test func indefiniteStringsCountTowardsDepth() {
        let decoder = CBORDecoder(limits: CBORLimits(maximumDepth: 1))
        #expect(errorCode(hex("5f 41 00 ff"), decoder: decoder) == nil)
        #expect(errorCode(hex("81 5f 41 00 ff"), decoder: decoder) == .depthExceeded)
    }

    @Test(arguments: [
        ("83 01 02 03", 4, true), ("83 01 02 03", 3, false),
        ("9f 01 02 03 ff", 4, true), ("9f 01 02 03 ff", 3, false),
        ("a1 01 02", 3, true), ("a1 01 02", 2, false),
        ("5f 41 00 41 01 ff", 3, true), ("5f 41 00 41 01 ff", 2, false),
        ("c1 c1 00", 3, true), ("c1 c1 00", 2, false),
    ])
    func moreItemsThanTheLimitFail(encoding: String, maximumItems: Int, accepted: Bool) {
        let decoder = CBORDecoder(limits: CBORLimits(maximumItems: maximumItems))
        #expect(errorCode(hex(encoding), decoder: decoder) == (accepted ? nil : .tooManyItems))
    }

    @Test func itemLimitCountsEveryDepth() {
        let decoder = CBORDecoder(limits: CBORLimits(maximumItems: 100))
        let wide = CBORValue.array((0..<10).map { _ in .array((0..<10).map { .unsigned($0) }) })
        #expect(errorCode(CBOREncoder.encode(wide), decoder: decoder) == .tooManyItems)
    }
}

/// The code `decode` fails with, or `nil` when it succeeds.
func errorCode(_ input: [UInt8], decoder: CBORDecoder = CBORDecoder()) -> CBORError.Code? {
    do {
        _ = try decoder.decode(input)
        return nil
    } catch {
        return error.code
    }
}
