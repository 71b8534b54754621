/// The fields of a composite value in PostgreSQL's binary format (what `record_send` writes): the number of fields
/// (4 bytes, big-endian), then for each its type's OID (4 bytes), its length (4 bytes; -1 for NULL) and that many bytes.
/// Every length is checked against what is left, and nothing may follow the last field.
enum PostgresComposite {
    /// The most fields read: PostgreSQL's own limit of a row's columns.
    static let maximumFields = 1_664

    /// Each field's bytes within `value` (nil: NULL).
    /// - Throws: `postgres.decodingFailed` when `value` is not a whole composite value of at most `maximumFields`.
    static func fields(_ value: [UInt8]) throws(PostgresError) -> [Range<Int>?] {
        var offset = 0
        func integer() throws(PostgresError) -> Int32 {
            guard value.count - offset >= 4 else { throw PostgresError(.decodingFailed, "a composite value ends inside a header") }
            let read = value[offset..<offset + 4].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
            offset += 4
            return Int32(bitPattern: read)
        }
        let count = Int(try integer())
        guard (0...maximumFields).contains(count) else {
            throw PostgresError(.decodingFailed, "a composite value counts \(count) fields")
        }
        var fields: [Range<Int>?] = []
        fields.reserveCapacity(count)
        for _ in 0..<count {
            _ = try integer()  // the field's type: the caller reads each field as the type it declared
            let length = Int(try integer())
            guard length >= -1, length <= value.count - offset else {
                throw PostgresError(.decodingFailed, "a composite field's length \(length) exceeds the value")
            }
            guard length >= 0 else {
                fields.append(nil)
                continue
            }
            fields.append(offset..<offset + length)
            offset += length
        }
        guard offset == value.count else { throw PostgresError(.decodingFailed, "bytes follow a composite value's last field") }
        return fields
    }
}
