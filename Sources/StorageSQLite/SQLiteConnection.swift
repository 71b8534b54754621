import CSQLite

/// One SQLite database connection and its cache of prepared statements. Not thread-safe: its owner
/// (`SQLiteStore`) lets one thread at a time use it.
final class SQLiteConnection {
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// The statements of `SQLiteQuery`s, by the query's identity (the query is kept with its statement).
    private var queried: [ObjectIdentifier: (query: SQLiteQuery, statement: SQLiteStatement)] = [:]
    /// Whether commits wait for the disk (`synchronous=FULL`) rather than only for the OS (`NORMAL`).
    private(set) var hasDurableCommits = false

    /// Opens (creating if needed) the database at `path`; ":memory:" opens a private in-memory database. A `readOnly`
    /// connection opens an existing file and refuses every write (`SQLITE_READONLY`).
    init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        _ = Self.withoutMemoryStatistics
        var handle: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError.failure("open", resultCode: code, connection: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
    }

    /// SQLite's memory statistics switched off once per process, before its first connection opens (SQLite takes its
    /// configuration only then, and it is process-wide as `SQLiteLog` is): nothing reads them, and counting them locks a
    /// process-wide mutex around each of SQLite's allocations. Refused (and harmless) when a connection opened first.
    private static let withoutMemoryStatistics: Void = { _ = passkeyd_sqlite3_config_no_memory_statistics() }()

    deinit {
        queried.removeAll()
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Waits up to `milliseconds` for locks held by other connections before failing with SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int32) throws(SQLiteError) {
        let code = sqlite3_busy_timeout(handle, milliseconds)
        guard code == SQLITE_OK else { throw error(during: "busy_timeout") }
    }

    /// Runs fixed SQL text (schema, pragmas) that contains no values; may hold several statements.
    func execute(_ sql: String) throws(SQLiteError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(during: "execute") }
    }

    /// Sets `synchronous=FULL` (`durable`: a commit that returned survives a power loss) or `synchronous=NORMAL`
    /// (in WAL mode the database stays consistent after a crash, but the last commits may be lost to a power loss
    /// or an OS crash, not to a crash of the process alone). Runs the pragma only when the setting changes; it is
    /// executed afresh rather than cached, because SQLite applies this pragma when it prepares it.
    func setDurableCommits(_ durable: Bool) throws(SQLiteError) {
        guard durable != hasDurableCommits else { return }
        try execute(durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        hasDurableCommits = durable
    }

    /// Returns the cached prepared statement for `sql`, preparing it on first use.
    func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try SQLiteStatement(sql: sql, connection: handle)
        statements[sql] = statement
        return statement
    }

    /// The cached prepared statement of `query`, found by its identity (no text is hashed); the same statement as
    /// `statement(query.text)`.
    func statement(_ query: SQLiteQuery) throws(SQLiteError) -> SQLiteStatement {
        if let found = queried[ObjectIdentifier(query)] { return found.statement }
        let statement = try statement(query.text)
        queried[ObjectIdentifier(query)] = (query, statement)
        return statement
    }

    /// Runs `body` in a transaction that takes the write lock at once (BEGIN IMMEDIATE), so no other
    /// connection can write between its reads and writes. Commits when `body` returns, rolls back when it throws.
    func immediateTransaction<Result>(_ body: () throws(SQLiteError) -> Result) throws(SQLiteError) -> Result {
        try statement(SQLiteQuery.beginImmediate).run([])
        do {
            let result = try body()
            try statement(SQLiteQuery.commit).run([])
            return result
        } catch {
            if isInTransaction {
                _ = try? statement("ROLLBACK").run([])
            }
            throw error
        }
    }

    /// The rowid of the row the last successful INSERT on this connection added: cheaper than `RETURNING`, whose rows
    /// SQLite gathers in an ephemeral table it opens and closes for every statement.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open (SQLite is outside autocommit mode).
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    private func error(during operation: String) -> SQLiteError {
        SQLiteError.failure(operation, resultCode: sqlite3_extended_errcode(handle), connection: handle)
    }
}
