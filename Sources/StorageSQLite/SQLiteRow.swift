import CSQLite
import Foundation

/// The current result row of a statement; valid only inside the `row` closure of `SQLiteStatement.run`.
struct SQLiteRow {
    let statement: OpaquePointer

    func integer(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    func real(_ column: Int32) -> Double {
        sqlite3_column_double(statement, column)
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    func text(_ column: Int32) -> String {
        guard let characters = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeRawBufferPointer(start: characters, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(statement, column) else { return [] }
        let count = Int(sqlite3_column_bytes(statement, column))
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
