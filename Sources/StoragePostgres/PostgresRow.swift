import CLibPQ
import Foundation

/// One row of a binary-format result; valid only inside the `row` closure of `PostgresConnection.run`.
/// Reading a column as the wrong type throws instead of returning garbage.
struct PostgresRow {
    let result: OpaquePointer
    let index: Int32
    /// The result column that is column 0 of this row: a row of a join holds one record's columns after another's.
    var firstColumn: Int32 = 0

    /// The same row from result column `first` on, for the record whose columns start there.
    func columns(from first: Int32) -> PostgresRow {
        PostgresRow(result: result, index: index, firstColumn: firstColumn + first)
    }

    func isNull(_ column: Int32) -> Bool {
        PQgetisnull(result, index, firstColumn + column) == 1
    }

    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(PQgetlength(result, index, firstColumn + column))
        guard count > 0, let value = PQgetvalue(result, index, firstColumn + column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: value, count: count))
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
