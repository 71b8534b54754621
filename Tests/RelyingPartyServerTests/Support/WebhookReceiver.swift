import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `Tests/Python/webhooks/receiver.py` as a child process: a receiver that verifies every delivery with the `standardwebhooks`
/// PyPI package (in `.venv-webhooks`, made by `make webhook-deps`), logs what it accepted and answers the status of
/// its status file (default 204).
final class WebhookReceiver {
    /// A secret in the Standard Webhooks form (32 bytes).
    static let secret = "whsec_" + Data((0..<32).map { UInt8($0 * 7 & 0xFF) }).base64EncodedString()

    /// One request the receiver got.
    struct Delivery {
        let path: String
        let id: String
        let verified: Bool
        let status: Int
        let type: String
        let data: [String: Any]
        let timestamp: String
        let attempt: String
    }

    let port: Int
    let logPath: String
    let statusPath: String
    /// A documentation page whose Flask example to run instead of the receiver's own handler (`--documented`).
    var documented: String?
    private var process: SpawnedProcess?

    init(folder: String, port: Int? = nil) throws {
        self.port = try port ?? LoopbackPort.free()
        logPath = folder + "/receiver-\(self.port).jsonl"
        statusPath = folder + "/receiver-\(self.port).status"
    }

    var url: String { "http://127.0.0.1:\(port)/hooks" }

    /// The `webhooks` member of a configuration delivering everything (or `events`) here (at `path`), with fast retries.
    func configurationMember(id: String? = nil, path: String = "/hooks", events: [String]? = nil, extra: String = "") -> String {
        let members =
            [
                #""url": "http://127.0.0.1:\#(port)\#(path)""#, #""secret": "\#(Self.secret)""#, #""firstRetrySeconds": 1"#,
                #""maximumRetrySeconds": 2"#, #""timeoutSeconds": 3"#,
            ] + (id.map { [#""id": "\#($0)""#] } ?? []) + (events.map { [#""events": [\#($0.map { "\"\($0)\"" }.joined(separator: ", "))]"#] } ?? [])
        return "{" + members.joined(separator: ", ") + extra + "}"
    }

    static func python() throws -> String {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let python = repository + "/.venv-webhooks/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TransportFailure("the webhook receiver's venv is missing: run make webhook-deps")
        }
        return python
    }

    static func script() -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
            + "/Python/webhooks/receiver.py"
    }

    /// Starts the receiver (again) and waits until it listens.
    func start() throws {
        let ready = logPath + ".ready"
        try? FileManager.default.removeItem(atPath: ready)
        let process = try SpawnedProcess(
            try Self.python(),
            [Self.script(), "--port", String(port), "--secret", Self.secret, "--log", logPath, "--status", statusPath]
                + (documented.map { ["--documented", $0] } ?? [])
        )
        self.process = process
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            guard process.isRunning else { throw TransportFailure("the webhook receiver exited early") }
            if FileManager.default.fileExists(atPath: ready) { return }
            usleep(50_000)
        }
        throw TransportFailure("the webhook receiver did not start within 15 s")
    }

    /// Stops the receiver: nothing listens on its port until `start`.
    func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Makes the receiver answer `status` to verified deliveries (nil: 204).
    func answer(_ status: Int?) throws {
        if let status {
            try Data(String(status).utf8).write(to: URL(fileURLWithPath: statusPath))
        } else {
            try? FileManager.default.removeItem(atPath: statusPath)
        }
    }

    /// Every request logged so far, in arrival order.
    func deliveries() -> [Delivery] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            let body = object["body"] as? [String: Any] ?? [:]
            return Delivery(
                path: object["path"] as? String ?? "",
                id: object["id"] as? String ?? "",
                verified: object["verified"] as? Bool ?? false,
                status: object["status"] as? Int ?? 0,
                type: body["type"] as? String ?? "",
                data: body["data"] as? [String: Any] ?? [:],
                timestamp: body["timestamp"] as? String ?? "",
                attempt: object["attempt"] as? String ?? ""
            )
        }
    }

    /// The deliveries accepted (verified and answered 2xx), once each by path and ID, in arrival order.
    func accepted() -> [Delivery] {
        var seen = Set<String>()
        return deliveries().filter { $0.verified && (200..<300).contains($0.status) && seen.insert($0.path + " " + $0.id).inserted }
    }

    /// Waits until `condition` holds for the accepted deliveries, at most `seconds`.
    @discardableResult
    func wait(seconds: TimeInterval = 20, until condition: ([Delivery]) -> Bool) -> [Delivery] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let accepted = accepted()
            if condition(accepted) { return accepted }
            usleep(100_000)
        }
        return accepted()
    }

    deinit {
        stop()
    }
}
