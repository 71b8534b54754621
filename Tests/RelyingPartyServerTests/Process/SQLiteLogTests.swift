import Foundation
import StorageSQLite
import Testing

/// Issue 42: a corrupted WAL went unreported (the node started, nothing was logged). SQLite's own log now goes into
/// passkeyd's JSON log: a WAL recovered at start-up, left by a node killed before a checkpoint, is an error.
struct SQLiteLogTests {
    @Test func aWALRecoveredAtStartUpIsLoggedAsAnError() throws {
        let folder = try TemporaryFolder()
        let data = folder.path + "/data"
        let configuration = folder.path + "/node.json"
        let first = try ServeProcess(dataDirectory: data, configurationPath: configuration)
        #expect(!first.log.contains("\"event\":\"sqlite\""), "a fresh start recovers nothing: \(first.log)")
        first.stopWithSIGKILL()
        #expect(FileManager.default.fileExists(atPath: data + "/passkeyd.sqlite-wal"), "the killed node left its WAL")

        let second = try ServeProcess(dataDirectory: data, configurationPath: configuration)
        defer { _ = second.terminate() }
        let lines = second.log.split(separator: "\n").filter { $0.contains("\"event\":\"sqlite\"") }
        let recovered = try #require(lines.first { $0.contains("recovered") && $0.contains("frames from WAL file") }, "\(second.log)")
        let object = try JSONSerialization.jsonObject(with: Data(recovered.utf8)) as? [String: Any]
        #expect(object?["level"] as? String == "error")
        #expect((object?["message"] as? String)?.hasPrefix("SQLite (code 283): recovered ") == true, "\(recovered)")
    }

    /// SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_NOTICE_RECOVER_WAL, SQLITE_NOTICE_RECOVER_ROLLBACK, another notice,
    /// SQLITE_FULL, SQLITE_IOERR_WRITE, SQLITE_WARNING_AUTOINDEX, SQLITE_CONSTRAINT_UNIQUE, SQLITE_SCHEMA.
    static let severities: [(Int32, SQLiteLogMessage.Severity)] = [
        (11, .error), (26, .error), (283, .error), (539, .error), (27, .warning), (13, .warning), (778, .warning), (284, .debug),
        (2067, .debug), (17, .debug),
    ]

    @Test(arguments: severities)
    func eachMessageHasItsSeverity(resultCode: Int32, severity: SQLiteLogMessage.Severity) {
        #expect(SQLiteLogMessage(resultCode: resultCode, text: "x").severity == severity)
    }

    @Test func aMessageIsBounded() {
        let long = String(repeating: "é", count: SQLiteLogMessage.maximumTextBytes)
        #expect(SQLiteLogMessage(resultCode: 11, text: long).text.utf8.count <= SQLiteLogMessage.maximumTextBytes)
        #expect(SQLiteLogMessage(resultCode: 11, text: "short").text == "short")
    }
}
