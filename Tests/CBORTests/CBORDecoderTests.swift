import CBOR
import Testing

/// RFC 8949 Appendix A examples in preferred serialization: each decodes to the value and the value encodes back to it.
let appendixAPreferredExamples: [(encoding: String, value: CBORValue)] = [
    ("00", .unsigned(0)),
    ("01", .unsigned(1)),
    ("0a", .unsigned(10)),
    ("17", .unsigned(23)),
    ("1818", .unsigned(24)),
    ("1819", .unsigned(25)),
    ("1864", .unsigned(100)),
    ("1903e8", .unsigned(1000)),
    ("1a000f4240", .unsigned(1_000_000)),
    ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
    ("1bffffffffffffffff", .unsigned(18_446_744_073_709_551_615)),
    ("c249010000000000000000", .tagged(2, .bytes(hex("010000000000000000")))),
    ("3bffffffffffffffff", .negative(18_446_744_073_709_551_615)),
    ("c349010000000000000000", .tagged(3, .bytes(hex("010000000000000000")))),
    ("20", CBORValue(-1)),
    ("29", CBORValue(-10)),
    ("3863", CBORValue(-100)),
    ("3903e7", CBORValue(-1000)),
    ("f90000", .float(0.0)),
    ("f98000", .float(-0.0)),
    ("f93c00", .float(1.0)),
    ("fb3ff199999999999a", .float(1.1)),
    ("f93e00", .float(1.5)),
    ("f97bff", .float(65504.0)),
    ("fa47c35000", .float(100_000.0)),
    ("fa7f7fffff", .float(3.4028234663852886e+38)),
    ("fb7e37e43c8800759c", .float(1.0e+300)),
    ("f90001", .float(5.960464477539063e-8)),
    ("f90400", .float(0.00006103515625)),
    ("f9c400", .float(-4.0)),
    ("fbc010666666666666", .float(-4.1)),
    ("f97c00", .float(.infinity)),
    ("f9fc00", .float(-.infinity)),
    ("f4", .boolean(false)),
    ("f5", .boolean(true)),
    ("f6", .null),
    ("f7", .undefined),
    ("f0", .simple(16)),
    ("f8ff", .simple(255)),
    ("c074323031332d30332d32315432303a30343a30305a", .tagged(0, .text("2013-03-21T20:04:00Z"))),
    ("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240))),
    ("c1fb41d452d9ec200000", .tagged(1, .float(1_363_896_240.5))),
    ("d74401020304", .tagged(23, .bytes([1, 2, 3, 4]))),
    ("d818456449455446", .tagged(24, .bytes(hex("6449455446")))),
    ("d82076687474703a2f2f7777772e6578616d706c652e636f6d", .tagged(32, .text("http://www.example.com"))),
    ("40", .bytes([])),
    ("4401020304", .bytes([1, 2, 3, 4])),
    ("60", .text("")),
    ("6161", .text("a")),
    ("6449455446", .text("IETF")),
    ("62225c", .text("\"\\")),
    ("62c3bc", .text("\u{00FC}")),
    ("63e6b0b4", .text("\u{6C34}")),
    ("64f0908591", .text("\u{10151}")),
    ("80", .array([])),
    ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
    ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
    ("98190102030405060708090a0b0c0d0e0f101112131415161718181819", .array((1...25).map { .unsigned($0) })),
    ("a0", .map([])),
    ("a201020304", .map([CBORMapEntry(key: .unsigned(1), value: .unsigned(2)), CBORMapEntry(key: .unsigned(3), value: .unsigned(4))])),
    (
        "a26161016162820203",
        .map([
            CBORMapEntry(key: .text("a"), value: .unsigned(1)),
            CBORMapEntry(key: .text("b"), value: .array([.unsigned(2), .unsigned(3)])),
        ])
    ),
    ("826161a161626163", .array([.text("a"), .map([CBORMapEntry(key: .text("b"), value: .text("c"))])])),
    (
        "a56161614161626142616361436164614461656145",
        .map(
            ["a", "b", "c", "d", "e"].map {
                CBORMapEntry(key: .text($0), value: .text($0.uppercased()))
            }
        )
    ),
]

/// RFC 8949 Appendix A examples that decode to a value whose preferred encoding differs:
/// indefinite lengths and floats wider than they need to be.
let appendixANonPreferredExamples: [(encoding: String, value: CBORValue)] = [
    ("fa7f800000", .float(.infinity)),
    ("faff800000", .float(-.infinity)),
    ("fb7ff0000000000000", .float(.infinity)),
    ("fbfff0000000000000", .float(-.infinity)),
    ("5f42010243030405ff", .bytes([1, 2, 3, 4, 5])),
    ("7f657374726561646d696e67ff", .text("streaming")),
    ("9fff", .array([])),
    ("9f018202039f0405ffff", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
    ("9f01820203820405ff", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
    ("83018202039f0405ff", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
    ("83019f0203ff820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
    ("9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff", .array((1...25).map { .unsigned($0) })),
    (
        "bf61610161629f0203ffff",
        .map([
            CBORMapEntry(key: .text("a"), value: .unsigned(1)),
            CBORMapEntry(key: .text("b"), value: .array([.unsigned(2), .unsigned(3)])),
        ])
    ),
    ("826161bf61626163ff", .array([.text("a"), .map([CBORMapEntry(key: .text("b"), value: .text("c"))])])),
    (
        "bf6346756ef563416d7421ff",
        .map([
            CBORMapEntry(key: .text("Fun"), value: .boolean(true)),
            CBORMapEntry(key: .text("Amt"), value: CBORValue(-2)),
        ])
    ),
]

/// Encodings real authenticators send that preferred serialization would not produce.
let lenientExamples: [(encoding: String, value: CBORValue)] = [
    ("1800", .unsigned(0)),
    ("190001", .unsigned(1)),
    ("1b0000000000000017", .unsigned(23)),
    ("3800", CBORValue(-1)),
    ("5f ff", .bytes([])),
    ("7f ff", .text("")),
    ("5f 40 40 ff", .bytes([])),
    ("7f 60 ff", .text("")),
    ("bf ff", .map([])),
    ("a2 03 00 01 00", .map([CBORMapEntry(key: .unsigned(3), value: .unsigned(0)), CBORMapEntry(key: .unsigned(1), value: .unsigned(0))])),
    ("a2 6461626364 00 61 7a 00", .map([CBORMapEntry(key: .text("abcd"), value: .unsigned(0)), CBORMapEntry(key: .text("z"), value: .unsigned(0))])),
    ("9a00000001 00", .array([.unsigned(0)])),
    ("c6 00", .tagged(6, .unsigned(0))),
    ("d4 00", .tagged(20, .unsigned(0))),
    ("db ffffffffffffffff 00", .tagged(.max, .unsigned(0))),
    ("c1 c1 00", .tagged(1, .tagged(1, .unsigned(0)))),
    ("f3", .simple(19)),
    ("f8 20", .simple(32)),
    ("fa 3fc00000", .float(1.5)),
]

@Suite struct CBORDecoderTests {
    let decoder = CBORDecoder()

    @Test(arguments: appendixAPreferredExamples + appendixANonPreferredExamples + lenientExamples)
    func decodes(encoding: String, value: CBORValue) throws {
        #expect(try decoder.decode(hex(encoding)) == value)
    }

    @Test(arguments: ["f97e00", "fa7fc00000", "fb7ff8000000000000"])
    func decodesNaN(encoding: String) throws {
        let value = try decoder.decode(hex(encoding))
        guard case .float(let number) = value else {
            Issue.record("expected a float, got \(value)")
            return
        }
        #expect(number.isNaN)
    }

    @Test func negativeZeroKeepsItsSign() throws {
        guard case .float(let number) = try decoder.decode(hex("f98000")) else {
            Issue.record("expected a float")
            return
        }
        #expect(number.sign == .minus)
    }

    @Test func decodesFromASliceWithNonZeroStartIndex() throws {
        let bytes = hex("ff ff a1 01 02 ff")
        #expect(try decoder.decode(bytes[2..<5]) == .map([CBORMapEntry(key: .unsigned(1), value: .unsigned(2))]))
    }

    @Test func decodeFirstReportsBytesReadAndIgnoresTheRest() throws {
        let bytes = hex("00 a5 01 02 03 26 20 01 21 42 aa bb 22 42 cc dd a1 6b 63 72 65 64 50 72 6f 74 65 63 74 02")
        let (key, bytesRead) = try decoder.decodeFirst(bytes[1...])
        #expect(bytesRead == 15)
        #expect(key[1] == .unsigned(2))
        #expect(key[-1] == .unsigned(1))
        #expect(key[-3] == .bytes([0xCC, 0xDD]))
        let (extensions, extensionsLength) = try decoder.decodeFirst(bytes[(1 + bytesRead)...])
        #expect(extensionsLength == 14)
        #expect(extensions["credProtect"] == .unsigned(2))
    }

    @Test func decodeFirstAcceptsTrailingGarbage() throws {
        let (value, bytesRead) = try decoder.decodeFirst(hex("9f 01 ff ff 1c")[...])
        #expect(value == .array([.unsigned(1)]))
        #expect(bytesRead == 3)
    }

    @Test func decodeFirstStillRejectsAnEmptyInput() {
        #expect(throws: CBORError.self) { try decoder.decodeFirst([]) }
    }
}
