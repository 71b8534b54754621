import CSQLite
import Foundation

/// The current result row of a statement; valid only inside the `row` closure of `SQLiteStatement.run`.
struct SQLiteRow {
    let statement: OpaquePointer
    /// Added to every column index: a row of a join reads its second record's columns through a shifted row.
    var offset: Int32 = 0

    /// The same row, its columns counted from `columns` on (the next record's of a join).
    func shifted(by columns: Int32) -> SQLiteRow {
        SQLiteRow(statement: statement, offset: offset + columns)
    }

    func integer(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, offset + column)
    }

    func real(_ column: Int32) -> Double {
        sqlite3_column_double(statement, offset + column)
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, offset + column) == SQLITE_NULL
    }

    func text(_ column: Int32) -> String {
        guard let characters = sqlite3_column_text(statement, offset + column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, offset + column))
        return String(decoding: UnsafeRawBufferPointer(start: characters, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(statement, offset + column) else { return [] }
        let count = Int(sqlite3_column_bytes(statement, offset + column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}

extension SQLiteRow {
    func date(_ column: Int32) -> Date {
        Date(timeIntervalSinceReferenceDate: real(column))
    }

    func bool(_ column: Int32) -> Bool {
        integer(column) != 0
    }
}
