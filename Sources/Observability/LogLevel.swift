/// How much a log line matters; `log.level` drops the lines below it.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug
    case info
    case warning
    case error

    /// The name in the configuration and in every line (`"warning"`).
    public var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// The level named `name`, nil for an unknown name.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    public static func < (left: LogLevel, right: LogLevel) -> Bool {
        left.rawValue < right.rawValue
    }
}
