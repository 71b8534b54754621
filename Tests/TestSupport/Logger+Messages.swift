import Observability

extension Logger {
    /// A logger of every level that hands each record's message to `collect`, for tests that look at what was logged.
    public static func messages(_ collect: @escaping @Sendable (String) -> Void) -> Logger {
        Logger(level: .debug) { record in collect(record.message) }
    }
}
