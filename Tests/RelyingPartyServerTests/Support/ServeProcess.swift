import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `passkeyd serve` as a real child process on a free loopback port, its standard error kept in a file.
final class ServeProcess {
    let process: SpawnedProcess
    let port: Int
    /// The admin listener's port, when started with one.
    let adminPort: Int?
    let logPath: String
    let configurationPath: String

    /// The built `passkeyd`: next to the test bundle, or in `.build/debug` of this repository.
    static func executable() throws -> String {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        for candidate in [products + "/passkeyd", repository + "/.build/debug/passkeyd"] where FileManager.default.isExecutableFile(atPath: candidate)
        {
            return candidate
        }
        throw TransportFailure("passkeyd is not built; run swift build --build-tests")
    }

    /// Writes a configuration for `dataDirectory` on a free port and starts the server; returns once /healthz answers.
    /// `extraMembers` are added to the configuration object as they are (e.g. `"rateLimits": {...}`). With
    /// `openFileLimit`, the server starts under `ulimit -n` of that many descriptors (soft and hard). With
    /// `adminListener`, it also listens for the admin API on a free loopback port (`adminPort`), where `/metrics` needs
    /// no key.
    init(
        dataDirectory: String,
        configurationPath: String,
        extraMembers: String? = nil,
        openFileLimit: Int? = nil,
        adminListener: Bool = false
    ) throws {
        port = try LoopbackPort.free()
        adminPort = adminListener ? try LoopbackPort.free() : nil
        self.configurationPath = configurationPath
        let admin = adminPort.map {
            #", "admin": "127.0.0.1:\#($0)"}, "admin": {"keys": [{"name": "ops", "keySHA256": "\#(String(repeating: "a", count: 64))"}]}"#
        }
        let configuration = """
            {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]},
             "listen": {"https": "127.0.0.1:\(port)"\(admin ?? "}"), "dataDirectory": "\(dataDirectory)", "www": null, "threads": 2\(extraMembers.map { ", " + $0 } ?? "")}
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: configurationPath))
        logPath = dataDirectory + "-serve-\(port).log"
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else { throw TransportFailure("cannot create \(logPath)") }
        if let openFileLimit {
            // bash execs passkeyd in its own process, so the process identifier is the server's.
            process = try SpawnedProcess(
                "/bin/bash",
                ["-c", "ulimit -n \(openFileLimit) && exec \"$0\" \"$@\"", try Self.executable(), "serve", "--config", configurationPath],
                standardError: .file(logPath)
            )
        } else {
            process = try SpawnedProcess(try Self.executable(), ["serve", "--config", configurationPath], standardError: .file(logPath))
        }
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            guard process.isRunning else { throw TransportFailure("passkeyd exited early: \(log)") }
            if let reply = try? CurlTransport(port: port).send("GET", "/healthz", body: nil, headers: []), reply.status == 200 { return }
            usleep(100_000)
        }
        stopWithSIGKILL()
        throw TransportFailure("passkeyd did not answer within 15 s: \(log)")
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The size of the log so far, in bytes.
    var logSize: Int { ((try? FileManager.default.attributesOfItem(atPath: logPath))?[.size] as? Int) ?? 0 }

    /// The server's CPU time so far (user and system), from `/proc/<pid>/stat`.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ", options: .backwards)
        else { return 0 }
        // After "pid (comm) ": state is field 3, utime field 14, stime field 15 (proc(5)).
        let fields = stat[afterName.upperBound...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The descriptors the server holds open now.
    var openDescriptorCount: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? 0
    }

    /// Waits up to `seconds` for `text` to appear in the log after its first `offset` bytes; whether it did.
    func waitForLog(_ text: String, after offset: Int = 0, within seconds: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if log.utf8.dropFirst(offset).count > 0, String(decoding: Array(log.utf8.dropFirst(offset)), as: UTF8.self).contains(text) {
                return true
            }
            usleep(50_000)
        }
        return false
    }

    /// Sends `signal` to the server.
    func send(signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Sends SIGTERM and waits up to `seconds`; the exit status, or nil when it had to be killed.
    func terminate(within seconds: TimeInterval = 5) -> Int32? {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        guard !process.isRunning else {
            stopWithSIGKILL()
            return nil
        }
        return process.terminationStatus
    }

    /// Kills the server at once (no chance to finish anything) and waits for it to be gone.
    func stopWithSIGKILL() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        stopWithSIGKILL()
    }
}
