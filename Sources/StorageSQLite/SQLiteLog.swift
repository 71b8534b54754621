import CSQLite

/// SQLite's own log (`SQLITE_CONFIG_LOG`), forwarded to a sink (`passkeyd` writes it into its JSON log). SQLite keeps
/// one log per process and takes it only before the process's first connection opens, so it is set once, first thing,
/// and its sink lives as long as the process: the one process-wide thing here, because SQLite's log is.
public enum SQLiteLog {
    /// Holds the sink for SQLite's callback, which takes a C function and a context pointer.
    private final class Sink: Sendable {
        let deliver: @Sendable (SQLiteLogMessage) -> Void
        init(_ deliver: @escaping @Sendable (SQLiteLogMessage) -> Void) { self.deliver = deliver }
    }

    /// Sends every message SQLite logs from now on to `sink`, on the thread that made SQLite log it.
    /// - Returns: false, forwarding nothing, when SQLite refused: a connection was opened already in this process.
    public static func forward(to sink: @escaping @Sendable (SQLiteLogMessage) -> Void) -> Bool {
        let context = Unmanaged.passRetained(Sink(sink))
        let status = passkeyd_sqlite3_config_log(
            { context, code, text in
                guard let context else { return }
                let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                sink.deliver(SQLiteLogMessage(resultCode: code, text: text.map { String(cString: $0) } ?? ""))
            },
            context.toOpaque()
        )
        guard status == SQLITE_OK else {
            context.release()
            return false
        }
        return true
    }
}
