import CSQLite

/// A prepared statement owned by one `SQLiteConnection`. Reused: `run` binds, steps to completion and resets.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer

    init(sql: String, connection: OpaquePointer) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_finalize(handle)
            throw SQLiteError.failure("prepare", resultCode: sqlite3_extended_errcode(connection), connection: connection)
        }
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds `parameters` to ?1, ?2, …, steps until the statement is done and resets it.
    /// - Returns: one element per result row, made by `row` while the row is current.
    func run<Row>(
        _ parameters: [SQLiteValue],
        row: (SQLiteRow) throws(SQLiteError) -> Row
    ) throws(SQLiteError) -> [Row] {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        for (offset, value) in parameters.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
        var rows: [Row] = []
        while true {
            let code = sqlite3_step(handle)
            switch code {
            case SQLITE_ROW:
                rows.append(try row(SQLiteRow(statement: handle)))
            case SQLITE_DONE:
                return rows
            default:
                throw SQLiteError.failure("step", resultCode: sqlite3_extended_errcode(connection), connection: connection)
            }
        }
    }

    /// Binds `parameters`, runs the statement to completion and resets it.
    /// - Returns: the number of rows the statement inserted, updated or deleted.
    @discardableResult
    func run(_ parameters: [SQLiteValue]) throws(SQLiteError) -> Int {
        _ = try run(parameters) { _ throws(SQLiteError) in () }
        return Int(sqlite3_changes64(connection))
    }

    private func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, index, real)
        case .text(let text) where text.isEmpty:
            code = sqlite3_bind_text(handle, index, "", 0, SQLiteStatement.transient)
        case .text(var text):
            // The string's own UTF-8 (no array copy made first); SQLite copies it (transient).
            code = text.withUTF8 { buffer in
                buffer.withMemoryRebound(to: CChar.self) { characters in
                    sqlite3_bind_text(handle, index, characters.baseAddress, Int32(characters.count), SQLiteStatement.transient)
                }
            }
        case .blob(let bytes) where bytes.isEmpty:
            code = sqlite3_bind_zeroblob(handle, index, 0)
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), SQLiteStatement.transient)
            }
        case .null:
            code = sqlite3_bind_null(handle, index)
        }
        guard code == SQLITE_OK else {
            throw SQLiteError.failure("bind", resultCode: sqlite3_extended_errcode(connection), connection: connection)
        }
    }

    /// Tells SQLite to copy bound text and blobs (the C macro SQLITE_TRANSIENT is a cast Swift can't import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
