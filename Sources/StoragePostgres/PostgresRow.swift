import CLibPQ
import Foundation

/// One row of a binary-format result, or the fields of a composite value in one of its columns; valid only inside the
/// `row` closure of `PostgresConnection.run`. Reading a column as the wrong type throws instead of returning garbage.
struct PostgresRow {
    private enum Values {
        case result(OpaquePointer, index: Int32)
        /// A composite value's bytes and its fields' ranges in them (nil: NULL).
        case composite([UInt8], fields: [Range<Int>?])
    }

    private let values: Values
    /// The column that is column 0 of this row: a row of a join holds one record's columns after another's.
    private var firstColumn: Int32 = 0

    init(result: OpaquePointer, index: Int32) {
        values = .result(result, index: index)
    }

    private init(composite value: [UInt8], fields: [Range<Int>?]) {
        values = .composite(value, fields: fields)
    }

    /// The same row from column `first` on, for the record whose columns start there.
    func columns(from first: Int32) -> PostgresRow {
        var row = self
        row.firstColumn += first
        return row
    }

    /// The composite value in `column` (binary format, `PostgresComposite`) as a row of its fields.
    /// - Throws: `postgres.decodingFailed` when it is NULL, malformed or has another number of fields than `count`.
    func composite(_ column: Int32, fields count: Int) throws(PostgresError) -> PostgresRow {
        guard !isNull(column) else { throw PostgresError(.decodingFailed, "a composite column is NULL") }
        let value = bytes(column)
        let fields = try PostgresComposite.fields(value)
        guard fields.count == count else {
            throw PostgresError(.decodingFailed, "a composite value has \(fields.count) fields, not \(count)")
        }
        return PostgresRow(composite: value, fields: fields)
    }

    /// A column this row does not have reads as NULL, as libpq answers one out of range.
    func isNull(_ column: Int32) -> Bool {
        switch values {
        case .result(let result, let index):
            return PQgetisnull(result, index, firstColumn + column) == 1
        case .composite(_, let fields):
            return field(fields, firstColumn + column) == nil
        }
    }

    func bytes(_ column: Int32) -> [UInt8] {
        switch values {
        case .result(let result, let index):
            let count = Int(PQgetlength(result, index, firstColumn + column))
            guard count > 0, let value = PQgetvalue(result, index, firstColumn + column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: value, count: count))
        case .composite(let value, let fields):
            guard let range = field(fields, firstColumn + column) else { return [] }
            return Array(value[range])
        }
    }

    private func field(_ fields: [Range<Int>?], _ index: Int32) -> Range<Int>? {
        fields.indices.contains(Int(index)) ? fields[Int(index)] : nil
    }

    func text(_ column: Int32) -> String {
        String(decoding: bytes(column), as: UTF8.self)
    }

    /// An int2, int4 or int8 column.
    func integer(_ column: Int32) throws(PostgresError) -> Int64 {
        let value = bytes(column)
        guard [2, 4, 8].contains(value.count) else { throw PostgresError(.decodingFailed, "an integer column has \(value.count) bytes") }
        let unsigned = value.reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        let shift = UInt64(64 - 8 * value.count)
        return Int64(bitPattern: unsigned << shift) >> Int64(shift)
    }

    func double(_ column: Int32) throws(PostgresError) -> Double {
        let value = bytes(column)
        guard value.count == 8 else { throw PostgresError(.decodingFailed, "a double precision column has \(value.count) bytes") }
        return Double(bitPattern: value.reduce(UInt64(0)) { ($0 << 8) | UInt64($1) })
    }

    func boolean(_ column: Int32) throws(PostgresError) -> Bool {
        let value = bytes(column)
        guard value.count == 1 else { throw PostgresError(.decodingFailed, "a boolean column has \(value.count) bytes") }
        return value[0] != 0
    }

    func date(_ column: Int32) throws(PostgresError) -> Date {
        Date(timeIntervalSinceReferenceDate: try double(column))
    }
}
