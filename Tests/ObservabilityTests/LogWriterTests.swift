import Foundation
import Synchronization
import Testing

@testable import Observability

/// The two line formats: text for people, JSON for machines (every line parses, with the fields the issue names).
struct LogWriterTests {
    static let time = Date(timeIntervalSince1970: 1_764_590_400.5)  // 2025-12-01T12:00:00.5Z

    static func writer(_ format: LogFormat) -> LogWriter {
        LogWriter(format: format, node: "node-a", now: { time })
    }

    @Test func aJSONLineHasEveryFieldAndParses() throws {
        let record = LogRecord(
            level: .warning,
            event: "request",
            message: "refused \"quoted\" \\ and\na newline \u{1}",
            requestID: "r-1",
            route: "/me/passkeys/{id}",
            status: 400,
            durationMilliseconds: 1.23456,
            code: "clientData.originMismatch"
        )
        let line = Self.writer(.json).render(record)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["time"] as? String == "2025-12-01T12:00:00.500Z")
        #expect(object["level"] as? String == "warning")
        #expect(object["event"] as? String == "request")
        #expect(object["message"] as? String == record.message)
        #expect(object["node"] as? String == "node-a")
        #expect(object["requestId"] as? String == "r-1")
        #expect(object["route"] as? String == "/me/passkeys/{id}")
        #expect(object["status"] as? Int == 400)
        #expect(object["durationMs"] as? Double == 1.235)
        #expect(object["code"] as? String == "clientData.originMismatch")
    }

    @Test func aLineWithoutRequestFieldsLeavesThemOut() throws {
        let line = Self.writer(.json).render(LogRecord(level: .info, event: "server", message: "serving"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["time", "level", "event", "message", "node"])
    }

    @Test func aTextLineReadsLeftToRight() {
        let line = Self.writer(.text).render(
            LogRecord(
                level: .error,
                event: "request",
                message: "storage_unavailable",
                requestID: "r-2",
                route: "/me",
                status: 503,
                durationMilliseconds: 2
            )
        )
        #expect(line == "2025-12-01T12:00:00.500Z error request: storage_unavailable requestId=r-2 route=/me status=503 durationMs=2")
    }

    @Test func theLevelDropsWhatIsBelowIt() {
        let written = Collected()
        let logger = Logger(level: .warning) { written.append($0.message) }
        logger.debug("a")
        logger("b")
        logger.warning("c")
        logger.error("d")
        #expect(written.all == ["c", "d"])
        #expect(!logger.isEnabled(.info) && logger.isEnabled(.error))
        #expect(LogLevel(name: "warning") == .warning && LogLevel(name: "loud") == nil)
    }
}

/// Strings collected from several threads.
final class Collected: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
