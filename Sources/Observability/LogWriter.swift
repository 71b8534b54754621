import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Renders records as lines (`LogFormat`) stamped with the time and the node's name, and writes each with one
/// `write(2)` to a descriptor (standard error for the server), so that lines of several threads never interleave.
public struct LogWriter: Sendable {
    public let format: LogFormat
    /// `node.name`, or the host name: which node of a cluster wrote the line.
    public let node: String
    private let descriptor: Int32
    private let now: @Sendable () -> Date

    public init(format: LogFormat, node: String, descriptor: Int32 = 2, now: @escaping @Sendable () -> Date) {
        self.format = format
        self.node = node
        self.descriptor = descriptor
        self.now = now
    }

    /// `text` when `descriptor` is a terminal, `json` otherwise (a file, a pipe, the journal).
    public static func defaultFormat(descriptor: Int32 = 2) -> LogFormat {
        isatty(descriptor) == 1 ? .text : .json
    }

    /// The host name, for `node` when `node.name` is not set.
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "passkeyd" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A logger at `level` writing through this writer.
    public func logger(level: LogLevel) -> Logger {
        Logger(level: level) { record in write(record) }
    }

    /// Writes one record as one line.
    public func write(_ record: LogRecord) {
        let line = Array(render(record).utf8) + [0x0A]
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// The line for `record` (without its newline).
    public func render(_ record: LogRecord) -> String {
        let time = RFC3339Timestamp.milliseconds(now())
        switch format {
        case .text:
            var line = "\(time) \(record.level.name) \(record.event): \(record.message)"
            if let requestID = record.requestID { line += " requestId=\(requestID)" }
            if let route = record.route { line += " route=\(route)" }
            if let status = record.status { line += " status=\(status)" }
            if let duration = record.durationMilliseconds { line += " durationMs=\(Self.milliseconds(duration))" }
            if let code = record.code { line += " code=\(code)" }
            return line
        case .json:
            var members = [
                "\"time\":\(JSONText.quoted(time))", "\"level\":\(JSONText.quoted(record.level.name))",
                "\"event\":\(JSONText.quoted(record.event))", "\"message\":\(JSONText.quoted(record.message))",
                "\"node\":\(JSONText.quoted(node))",
            ]
            if let requestID = record.requestID { members.append("\"requestId\":\(JSONText.quoted(requestID))") }
            if let route = record.route { members.append("\"route\":\(JSONText.quoted(route))") }
            if let status = record.status { members.append("\"status\":\(status)") }
            if let duration = record.durationMilliseconds { members.append("\"durationMs\":\(Self.milliseconds(duration))") }
            if let code = record.code { members.append("\"code\":\(JSONText.quoted(code))") }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    /// A duration with at most three decimals (microseconds).
    static func milliseconds(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
