/// The one logger type: every part of passkeyd that logs is handed one (no global logger). It drops records below its
/// level and hands the rest to its sink, which `LogWriter` provides in the server (text or JSON lines on stderr) and a
/// test replaces with a collector.
public struct Logger: Sendable {
    /// The lowest level written.
    public let level: LogLevel
    private let sink: @Sendable (LogRecord) -> Void

    public init(level: LogLevel = .info, sink: @escaping @Sendable (LogRecord) -> Void) {
        self.level = level
        self.sink = sink
    }

    /// A logger that writes nothing.
    public static let discarding = Logger(level: .error) { _ in }

    /// Whether a record at `level` would be written (check before building an expensive one).
    public func isEnabled(_ level: LogLevel) -> Bool {
        level >= self.level
    }

    /// Writes `record` when its level is enabled.
    public func write(_ record: LogRecord) {
        guard record.level >= level else { return }
        sink(record)
    }

    /// An `info` line of `event` (default `server`).
    public func callAsFunction(_ message: String, event: String = "server") {
        write(LogRecord(level: .info, event: event, message: message))
    }

    public func debug(_ message: String, event: String = "server") {
        write(LogRecord(level: .debug, event: event, message: message))
    }

    public func warning(_ message: String, event: String = "server") {
        write(LogRecord(level: .warning, event: event, message: message))
    }

    public func error(_ message: String, event: String = "server") {
        write(LogRecord(level: .error, event: event, message: message))
    }
}
