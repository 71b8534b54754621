import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real `passkeyd serve` on a free loopback port (plain HTTP: an app's bearer-token traffic is the same over TLS)
/// with Sign in with Apple pointed at the device's Apple stand-in, and the device (`passkeyd-test-device`) that
/// plays the iPhone. Both binaries are the main package's: `PASSKEYD_BINARY` and `PASSKEYD_TEST_DEVICE` (set by
/// `make client-swift-test`), else `.build/debug` of the repository.
final class LoopbackServer {
    let baseURL: URL
    let device: TestDevice
    let relyingPartyID = "example.com"
    private let server = Process()
    private let folder: URL
    private let logPath: String
    private let configurationPath: String

    init(extraConfiguration: String = "") throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let p8 = folder.appendingPathComponent("AuthKey.p8").path
        device = try TestDevice(executable: try Self.binary("PASSKEYD_TEST_DEVICE", "passkeyd-test-device"), p8Path: p8)
        let apple = device.appleBaseURL
        let port = try Self.freePort()
        let configuration = """
            {"relyingParty": {"id": "\(relyingPartyID)", "name": "Example", "origins": ["https://\(relyingPartyID)"]},
             "listen": {"https": null, "http": "127.0.0.1:\(port)"}, "dataDirectory": "\(folder.path)/data", "www": null, "threads": 2,
             "apple": {"teamID": "ABCDE12345", "bundleIDs": ["\(device.bundleID)"], "keyID": "KEY1234567", "privateKey": "\(p8)",
                       "jwksURL": "\(apple)/auth/keys", "tokenURL": "\(apple)/auth/token", "revokeURL": "\(apple)/auth/revoke"}\(extraConfiguration)}
            """
        configurationPath = folder.appendingPathComponent("passkeyd.json").path
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: configurationPath))
        logPath = folder.appendingPathComponent("serve.log").path
        FileManager.default.createFile(atPath: logPath, contents: nil)
        server.executableURL = URL(fileURLWithPath: try Self.binary("PASSKEYD_BINARY", "passkeyd"))
        server.arguments = ["serve", "--config", configurationPath]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try server.run()
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            guard server.isRunning else { throw Failure("passkeyd exited: \(log)") }
            if Self.answers(baseURL.appendingPathComponent("healthz")) { return }
            usleep(100_000)
        }
        throw Failure("passkeyd did not answer /healthz within 20 s: \(log)")
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// `passkeyd admin import FILE` on the running server's store (an operator's import of users from another system).
    func importUsers(_ lines: String) throws {
        let file = folder.appendingPathComponent("import-\(UUID().uuidString).jsonl")
        try Data(lines.utf8).write(to: file)
        let command = Process()
        command.executableURL = server.executableURL
        command.arguments = ["admin", "import", file.path, "--config", configurationPath]
        command.standardOutput = FileHandle.nullDevice
        command.standardError = FileHandle.nullDevice
        try command.run()
        command.waitUntilExit()
        guard command.terminationStatus == 0 else { throw Failure("passkeyd admin import exited \(command.terminationStatus)") }
    }

    func stop() {
        if server.isRunning {
            server.terminate()
            server.waitUntilExit()
        }
        device.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The main package's built binary `name`.
    static func binary(_ variable: String, _ name: String) throws -> String {
        if let path = ProcessInfo.processInfo.environment[variable], FileManager.default.isExecutableFile(atPath: path) { return path }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidate = repository.appendingPathComponent(".build/debug/\(name)").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw Failure("\(name) is not built: run `swift build --product \(name)` in \(repository.path), or set \(variable)")
        }
        return candidate
    }

    /// A port the kernel just gave a socket bound to port 0 on 127.0.0.1.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw Failure("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func answers(_ url: URL) -> Bool {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var ok = false
        URLSession.shared.dataTask(with: url) { _, response, _ in
            ok = (response as? HTTPURLResponse)?.statusCode == 200
            done.signal()
        }.resume()
        _ = done.wait(timeout: .now() + 2)
        return ok
    }
}
