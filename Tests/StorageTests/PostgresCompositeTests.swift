import Testing

@testable import StoragePostgres

/// The reader of composite values in PostgreSQL's binary format, which the sign-in's answer comes in: a whole value
/// reads, and anything else, however cut or padded, is refused.
struct PostgresCompositeTests {
    /// `record_send`'s bytes for fields of (OID, bytes or nil for NULL).
    static func value(_ fields: [(UInt32, [UInt8]?)]) -> [UInt8] {
        func word<T: FixedWidthInteger>(_ integer: T) -> [UInt8] { withUnsafeBytes(of: integer.bigEndian) { Array($0) } }
        return fields.reduce(word(Int32(fields.count))) { bytes, field in
            bytes + word(field.0) + word(Int32(field.1?.count ?? -1)) + (field.1 ?? [])
        }
    }

    /// text 'recorded', bytea NULL, float8, an empty text.
    static let sample = value([(25, Array("recorded".utf8)), (17, nil), (701, [0x40, 0x09, 0x21, 0xFB, 0x54, 0x44, 0x2D, 0x18]), (25, [])])

    @Test func aWholeValueReadsItsFieldsAndNulls() throws {
        let fields = try PostgresComposite.fields(Self.sample)
        #expect(fields.count == 4)
        #expect(fields[0].map { Array(Self.sample[$0]) } == Array("recorded".utf8))
        #expect(fields[1] == nil, "NULL")
        #expect(fields[2]?.count == 8)
        #expect(fields[3]?.isEmpty == true, "empty, not NULL")
        #expect(try PostgresComposite.fields(Self.value([])).isEmpty)
    }

    /// The sign-in's arguments go the other way, as one composite value (`PostgresValue.record`) in the same format: a
    /// NULL field keeps the type it is declared with, which the server checks against its column's.
    @Test func aRecordArgumentIsWrittenInTheSameFormat() {
        let record = PostgresValue.record(typed: [
            (.text("recorded"), "text"), (.null, "bytea"), (.double(3.141592653589793), "float8"), (.text(""), "text"),
        ])
        #expect(record.binary == Self.sample)
        #expect(record.typeOID == 0, "inferred by the server from where it stands")
        #expect(PostgresValue.record(typed: []).binary == Self.value([]))
        #expect(
            PostgresValue.record(typed: [(.null, "money")]).binary == Self.value([(0, nil)]),
            "an undeclared type: OID 0, which the server refuses"
        )
    }

    @Test func everyShortenedValueIsRefused() {
        for length in 0..<Self.sample.count {
            #expect(throws: PostgresError.self, "\(length) bytes") { try PostgresComposite.fields(Array(Self.sample.prefix(length))) }
        }
    }

    @Test func bytesAfterTheLastFieldAreRefused() {
        #expect(throws: PostgresError.self) { try PostgresComposite.fields(Self.sample + [0]) }
    }

    @Test func impossibleCountsAndLengthsAreRefused() {
        let negativeCount: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
        let tooMany = withUnsafeBytes(of: Int32(PostgresComposite.maximumFields + 1).bigEndian) { Array($0) }
        // One field of length -2, then one of a length past the end.
        let negativeLength: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 25, 0xFF, 0xFF, 0xFF, 0xFE]
        let pastTheEnd: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 25, 0x7F, 0xFF, 0xFF, 0xFF, 1, 2]
        for value in [negativeCount, tooMany, negativeLength, pastTheEnd] {
            #expect(throws: PostgresError.self, "\(value)") { try PostgresComposite.fields(value) }
        }
    }
}
