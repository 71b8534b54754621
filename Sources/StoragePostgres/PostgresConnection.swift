import CLibPQ
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One libpq connection with its prepared statements. Not thread-safe: the pool lends it to one caller at a time.
///
/// Behind a transaction-mode pooler (`transactionPooling`: PgBouncer, Supabase's and RDS Proxy's poolers) each
/// transaction may run on another server connection, so nothing may outlive one: statements are sent unnamed
/// (parsed with each call) instead of prepared once, and no session setting is made.
final class PostgresConnection: @unchecked Sendable {
    let handle: OpaquePointer
    /// Whether the connection reaches PostgreSQL through a transaction-mode pooler (see the type's comment).
    let transactionPooling: Bool
    /// Where PostgreSQL's notices go (kept alive here: libpq holds a raw pointer to it).
    private let notices: PostgresNoticeReceiver
    /// Statement names by SQL text; each SQL text is prepared once per connection, on first use.
    private var prepared: [String: String] = [:]
    /// Set by the pool for a call whose commits need not wait for the WAL flush (`synchronous_commit = off` for its
    /// transactions alone: see `executePrepared` and `transaction`). The session's setting is never changed.
    var defersDurability = false
    /// The round trips made so far: statements, preparations, and pipelines of a statement with its durability
    /// setting (one each), for the tests that count a ceremony's.
    private(set) var statementsSent = 0
    /// How long a call waits for the server's answer before it gives up (`timedOut`) and abandons the connection.
    var replyDeadline: Duration
    /// When the call borrowing the connection must be over, if it has a deadline of its own (a shared-limit draw):
    /// a reply that would come later is not waited for, whatever `replyDeadline` allows.
    var callDeadline: ContinuousClock.Instant?
    /// Set when a call gave up waiting: the connection is in an unknown state and must not be used again.
    private var isAbandoned = false

    /// Connects with `connectionString` (key=value pairs or a postgresql:// URI). passkeyd's defaults come first,
    /// so that the connection string overrides them: 5 s to connect, 15 s for an unacknowledged write on a dead
    /// network, keep-alives that give up on a silent server after about a minute, statements (lock waits included)
    /// cancelled by the server after 30 s, and the application name seen in `pg_stat_activity`. Through a
    /// transaction-mode pooler the statement timeout is not sent (poolers refuse the `options` startup parameter):
    /// the pooler's `query_timeout` or the role's `statement_timeout` takes its place. With `connectDeadline`, the
    /// connection is made without blocking and given up at that instant (libpq's `connect_timeout`, at least 2 s, does
    /// not apply then; a host name is still resolved before the deadline is watched). `keepalive`: seconds of silence
    /// before the first probe, seconds between probes, probes unanswered before the connection is given up.
    /// `lockTimeoutMilliseconds`: the server's `lock_timeout` for the connection (not through a pooler either).
    /// `sendsStartupOptions` false: no `options` (statement and lock timeouts) even on a direct connection, for a
    /// connection string that may reach a session-mode pooler.
    init(
        connectionString: String,
        transactionPooling: Bool = false,
        sendsStartupOptions: Bool = true,
        notices: PostgresNoticeReceiver = PostgresNoticeReceiver { _ in },
        replyDeadline: Duration = PostgresConnection.defaultReplyDeadline,
        connectDeadline: ContinuousClock.Instant? = nil,
        keepalive: (idle: Int, interval: Int, count: Int) = (30, 10, 3),
        lockTimeoutMilliseconds: Int? = nil
    ) throws(PostgresError) {
        self.replyDeadline = replyDeadline
        self.transactionPooling = transactionPooling
        self.notices = notices
        let options = "-c statement_timeout=30000" + (lockTimeoutMilliseconds.map { " -c lock_timeout=\($0)" } ?? "")
        let parameters =
            [
                ("connect_timeout", "5"), ("tcp_user_timeout", "15000"), ("keepalives", "1"), ("keepalives_idle", "\(keepalive.idle)"),
                ("keepalives_interval", "\(keepalive.interval)"), ("keepalives_count", "\(keepalive.count)"),
            ] + (transactionPooling || !sendsStartupOptions ? [] : [("options", options)]) + [
                ("application_name", "passkeyd"), ("dbname", connectionString),
            ]
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let handle = (keywords + [nil]).map { UnsafePointer($0) }.withUnsafeBufferPointer { keywordPointers in
            (values + [nil]).map { UnsafePointer($0) }.withUnsafeBufferPointer { valuePointers in
                connectDeadline == nil
                    ? PQconnectdbParams(keywordPointers.baseAddress, valuePointers.baseAddress, 1)
                    : PQconnectStartParams(keywordPointers.baseAddress, valuePointers.baseAddress, 1)
            }
        }
        guard let handle else { throw PostgresError(.connectionFailed, "PostgreSQL connect failed: out of memory") }
        if let connectDeadline, !Self.finishConnecting(handle, by: connectDeadline) {
            PQfinish(handle)
            throw PostgresError(.timedOut, "PostgreSQL did not accept a connection within the call's deadline")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let error = PostgresError.failure("connect", result: nil, connection: handle)
            PQfinish(handle)
            throw error
        }
        notices.install(on: handle)
        self.handle = handle
    }

    deinit {
        PQfinish(handle)
    }

    /// Drives a connection started by `PQconnectStartParams` until it is made or failed (true), or `deadline` passes
    /// (false), as libpq's documentation of `PQconnectPoll` says: wait for the socket as its last answer asks, then
    /// poll again, starting as if it had asked to write.
    private static func finishConnecting(_ handle: OpaquePointer, by deadline: ContinuousClock.Instant) -> Bool {
        guard PQstatus(handle) != CONNECTION_BAD else { return true }
        var polling = PGRES_POLLING_WRITING
        while polling != PGRES_POLLING_OK, polling != PGRES_POLLING_FAILED {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let events = polling == PGRES_POLLING_READING ? POLLIN : POLLOUT
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(events), revents: 0)
            let ready = poll(&descriptor, 1, pollMilliseconds(remaining))
            guard ready != 0 else { continue }
            guard ready > 0 || errno == EINTR else { return true }
            polling = PQconnectPoll(handle)
        }
        return true
    }

    /// `remaining` in whole milliseconds for `poll`, rounded up.
    static func pollMilliseconds(_ remaining: Duration) -> Int32 {
        let (seconds, attoseconds) = remaining.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// Whether libpq has seen the connection fail; such a connection is closed rather than reused.
    var isBroken: Bool { isAbandoned || PQstatus(handle) != CONNECTION_OK }

    /// What a statement may take, from sending it to its last result, unless the connection says otherwise.
    static let defaultReplyDeadline = Duration.seconds(10)

    /// Whether the connection is outside any transaction and ready for the next caller.
    var isReusable: Bool { !isBroken && PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Reads whatever the server sent while the connection sat idle, without waiting: a server that shut down or
    /// restarted has closed it, and libpq then marks it broken. Lets the pool drop such a connection before it
    /// carries a request instead of failing that request.
    var isAliveAfterIdling: Bool {
        // A server that went away sent its farewell message and then closed: the first read takes the message,
        // the second meets the end of the stream. On a healthy connection both find nothing to read.
        let alive = PQconsumeInput(handle) == 1 && PQconsumeInput(handle) == 1
        // PQconsumeInput only reads. Parsing, which hands the farewell `FATAL` to the notice receiver, happens in
        // PQisBusy, and libpq keeps what it read after it marked the connection broken: without this call the
        // farewell of a connection found closed here was never logged.
        _ = PQisBusy(handle)
        return alive && !isBroken
    }

    /// Runs fixed SQL text (schema, transaction control) that contains no values; may hold several statements.
    func execute(_ sql: String) throws(PostgresError) {
        statementsSent += 1
        readWhatArrivedWhileIdle()
        guard PQsendQuery(handle, sql) == 1 else { throw PostgresError.failure("execute", result: nil, connection: handle) }
        let result = try awaitResult()
        defer { PQclear(result) }
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw PostgresError.failure("execute", result: result, connection: handle)
        }
    }

    /// Runs `sql` with `parameters` ($1, $2, …) as a prepared statement, parameters and results in binary format.
    /// - Returns: one element per result row, made by `row`.
    func run<Row>(
        _ sql: String,
        _ parameters: [PostgresValue],
        row: (PostgresRow) throws(PostgresError) -> Row
    ) throws(PostgresError) -> [Row] {
        let result = try executePrepared(sql, parameters)
        defer { PQclear(result) }
        var rows: [Row] = []
        let count = PQntuples(result)
        rows.reserveCapacity(Int(count))
        for index in 0..<count {
            rows.append(try row(PostgresRow(result: result, index: index)))
        }
        return rows
    }

    /// Runs `sql` like `run(_:_:row:)`.
    /// - Returns: the number of rows the statement inserted, updated or deleted.
    @discardableResult
    func run(_ sql: String, _ parameters: [PostgresValue]) throws(PostgresError) -> Int {
        let result = try executePrepared(sql, parameters)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// `SET LOCAL synchronous_commit TO off` as one statement of the extended protocol: the setting holds until the
    /// transaction ends, whether it was begun by `BEGIN` or is the implicit one of a pipeline (where `SET LOCAL`
    /// would warn). With it a commit does not wait for the WAL flush: it is flushed by the WAL writer's next round, or
    /// by the next durable commit of any session, which flushes the WAL up to its own record.
    static let deferringDurability = "SELECT set_config('synchronous_commit', 'off', true)"

    /// Runs `body` in a READ COMMITTED transaction: commits when it returns, rolls back when it throws.
    /// A failed COMMIT throws, so a caller is never told that writes succeeded unless they were committed.
    /// With `defersDurability`, the commit does not wait for the WAL flush (`SET LOCAL`, sent with the `BEGIN`).
    func transaction<Result>(_ body: () throws(PostgresError) -> Result) throws(PostgresError) -> Result {
        try execute(defersDurability ? "BEGIN; SET LOCAL synchronous_commit TO off" : "BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    /// Rolls back the open transaction, if any, unless the connection is broken (the server then has rolled it back).
    func rollBack() {
        if PQtransactionStatus(handle) != PQTRANS_IDLE, !isBroken {
            try? execute("ROLLBACK")
        }
    }

    /// Sends `sql` with `parameters` and returns its result (a prepared statement, or the unnamed one through a
    /// transaction-mode pooler). With `defersDurability` outside a transaction, `deferringDurability` and the statement
    /// go together in one pipeline, the statement's own transaction, ended by the pipeline's `Sync`: one round trip,
    /// as the statement alone, and nothing that outlives the transaction, so it holds through a pooler too.
    private func executePrepared(_ sql: String, _ parameters: [PostgresValue]) throws(PostgresError) -> OpaquePointer {
        let pipelined = defersDurability && PQtransactionStatus(handle) == PQTRANS_IDLE
        let settingName = pipelined && !transactionPooling ? try statementName(Self.deferringDurability, []) : nil
        let name = transactionPooling ? nil : try statementName(sql, parameters)
        statementsSent += 1
        // One buffer holds every value; a trailing byte keeps a pointer valid for empty (non-NULL) values.
        var buffer: [UInt8] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        for parameter in parameters {
            if let bytes = parameter.binary {
                offsets.append(buffer.count)
                lengths.append(Int32(bytes.count))
                buffer.append(contentsOf: bytes)
            } else {
                offsets.append(nil)
                lengths.append(0)
            }
        }
        buffer.append(0)
        let formats = [Int32](repeating: 1, count: parameters.count)
        readWhatArrivedWhileIdle()
        if pipelined {
            guard PQenterPipelineMode(handle) == 1, send(Self.deferringDurability, settingName) == 1 else {
                isAbandoned = true
                throw PostgresError.failure("execute", result: nil, connection: handle)
            }
        }
        let sent = buffer.withUnsafeBytes { bytes in
            let base = bytes.baseAddress!.assumingMemoryBound(to: CChar.self)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in offset.map { UnsafePointer(base + $0) } }
            guard let name else {
                // The unnamed statement: parsed, bound and run in one round trip, kept by no server connection.
                return PQsendQueryParams(handle, sql, Int32(parameters.count), parameters.map(\.typeOID), pointers, lengths, formats, 1)
            }
            return PQsendQueryPrepared(handle, name, Int32(parameters.count), pointers, lengths, formats, 1)
        }
        guard sent == 1, !pipelined || PQpipelineSync(handle) == 1 else {
            // A connection left in pipeline mode must not be lent again.
            if pipelined { isAbandoned = true }
            throw PostgresError.failure("execute", result: nil, connection: handle)
        }
        let result = pipelined ? try awaitPipelinedResult() : try awaitResult()
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK, let result else {
            let error = PostgresError.failure("execute", result: result, connection: handle)
            PQclear(result)
            throw error
        }
        return result
    }

    /// Sends `sql`, which takes no parameters, as the prepared statement `name` or unnamed; results in binary format.
    private func send(_ sql: String, _ name: String?) -> Int32 {
        guard let name else { return PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 1) }
        return PQsendQueryPrepared(handle, name, 0, nil, nil, nil, 1)
    }

    /// The statement's result of a pipeline of `deferringDurability` and one statement, once the pipeline's end (its
    /// `Sync`) has been read and the connection has left pipeline mode; the setting's failure if it failed (the
    /// statement was then not run).
    private func awaitPipelinedResult() throws(PostgresError) -> OpaquePointer? {
        let setting = try awaitResult()
        let result: OpaquePointer?
        do {
            result = try awaitResult()
        } catch {
            PQclear(setting)
            throw error
        }
        let end: OpaquePointer?
        do {
            end = try awaitResult()
        } catch {
            PQclear(setting)
            PQclear(result)
            throw error
        }
        defer { PQclear(end) }
        guard end.map(PQresultStatus) == PGRES_PIPELINE_SYNC, PQexitPipelineMode(handle) == 1 else {
            PQclear(setting)
            PQclear(result)
            isAbandoned = true
            throw PostgresError.failure("execute", result: nil, connection: handle)
        }
        guard setting.map(PQresultStatus) == PGRES_TUPLES_OK else {
            PQclear(result)
            return setting
        }
        PQclear(setting)
        return result
    }

    private func statementName(_ sql: String, _ parameters: [PostgresValue]) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "passkeyd_\(prepared.count + 1)"
        statementsSent += 1
        let types = parameters.map(\.typeOID)
        readWhatArrivedWhileIdle()
        guard PQsendPrepare(handle, name, sql, Int32(types.count), types) == 1 else {
            throw PostgresError.failure("prepare", result: nil, connection: handle)
        }
        let result = try awaitResult()
        defer { PQclear(result) }
        guard let result, PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw PostgresError.failure("prepare", result: result, connection: handle)
        }
        prepared[sql] = name
        return name
    }

    /// Parses what the server sent while no command ran, as `PQexec` does before it sends: a `FATAL` that closed the
    /// connection goes to the notice receiver (for the log) instead of passing for the next command's error. Never
    /// waits: `PQisBusy` reads only what has arrived.
    private func readWhatArrivedWhileIdle() {
        _ = PQisBusy(handle)
    }

    /// The result of the command just sent, as `PQexec` gives it (the last of its results), waiting for the server at
    /// most `replyDeadline` in all, and never past `callDeadline`. A server that accepts and never answers (stopped,
    /// frozen, behind a network that drops silently) is what the server-side `statement_timeout` and the TCP timeouts
    /// do not catch: past the deadline the call throws `timedOut` and the connection, whose reply may still come, is
    /// abandoned (`isBroken`), so that the pool closes it instead of lending it again.
    private func awaitResult() throws(PostgresError) -> OpaquePointer? {
        var deadline = ContinuousClock.now.advanced(by: replyDeadline)
        if let callDeadline { deadline = min(deadline, callDeadline) }
        var last: OpaquePointer?
        while true {
            while PQisBusy(handle) == 1 {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else {
                    PQclear(last)
                    isAbandoned = true
                    throw PostgresError(.timedOut, "PostgreSQL did not answer within the call's deadline; the connection is closed")
                }
                var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, Self.pollMilliseconds(remaining)) >= 0 || errno == EINTR, PQconsumeInput(handle) == 1 else {
                    PQclear(last)
                    throw PostgresError.failure("read", result: nil, connection: handle)
                }
            }
            guard let result = PQgetResult(handle) else { return last }
            PQclear(last)
            last = result
        }
    }
}
