/// `log.format`: how `LogWriter` renders a record.
public enum LogFormat: String, Sendable, CaseIterable {
    /// One line for people: `time level event: message key=value…`.
    case text
    /// One JSON object per line: `time` (RFC 3339), `level`, `event`, `message`, `node` and the request fields.
    case json
}
