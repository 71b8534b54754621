import CSQLite

/// One message of SQLite's own log (`SQLITE_CONFIG_LOG`, see `SQLiteLog`): what SQLite reports beside a failed call's
/// result, such as corruption it found, a WAL it recovered, or a statement a constraint refused.
public struct SQLiteLogMessage: Sendable, Equatable {
    /// How much an operator should care.
    public enum Severity: Sendable, Equatable {
        /// Corruption (SQLITE_CORRUPT, SQLITE_NOTADB), and a WAL or journal recovered at start-up: the previous run
        /// stopped without a checkpoint, and what the recovery found is all that survived of it.
        case error
        /// Anything else SQLite logs but routine refusals: I/O errors, a full disk, a lock not granted.
        case warning
        /// A refusal the store expects and answers (a constraint: a taken username, a spent challenge), a statement
        /// prepared again after a schema change, an automatic index.
        case debug
    }

    /// The most bytes of `text` kept: SQLite's messages name a statement and a file, never a bound value.
    public static let maximumTextBytes = 512

    /// SQLite's extended result code.
    public let resultCode: Int32
    /// SQLite's message, cut to `maximumTextBytes`.
    public let text: String

    public init(resultCode: Int32, text: String) {
        self.resultCode = resultCode
        self.text = text.utf8.count <= Self.maximumTextBytes ? text : String(decoding: text.utf8.prefix(Self.maximumTextBytes), as: UTF8.self)
    }

    public var severity: Severity {
        switch resultCode & 0xff {
        case SQLITE_CORRUPT, SQLITE_NOTADB: .error
        case SQLITE_NOTICE: resultCode == Self.recoveredWAL || resultCode == Self.recoveredJournal ? .error : .warning
        case SQLITE_WARNING: resultCode == Self.automaticIndex ? .debug : .warning
        case SQLITE_CONSTRAINT, SQLITE_SCHEMA: .debug
        default: .warning
        }
    }

    // Extended result codes; the C macros are shift expressions Swift doesn't import.
    static let recoveredWAL = SQLITE_NOTICE | (1 << 8)
    static let recoveredJournal = SQLITE_NOTICE | (2 << 8)
    static let automaticIndex = SQLITE_WARNING | (1 << 8)
}
