import Foundation

/// Runs programs (curl, openssl, passkeyd) for the loopback and restart tests.
public enum ChildProcess {
    /// swift-corelibs-foundation's `Process.run()` is not safe to call from several threads at once (a parallel
    /// test run crashed inside it with a bad memcpy), so every test starts its children through this lock.
    private static let launching = NSLock()

    /// Starts `process`, one launch at a time across the test run.
    public static func launch(_ process: Process) throws {
        launching.lock()
        defer { launching.unlock() }
        try process.run()
    }

    public struct Result: Sendable {
        public let status: Int32
        public let output: Data
        public let errorOutput: String
    }

    /// Runs `executable` to completion, feeding `input` on standard input.
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let errorOutput = Pipe()
        let inputPipe = Pipe()
        process.standardOutput = output
        process.standardError = errorOutput
        process.standardInput = inputPipe
        try launch(process)
        // A child that exits before reading (e.g. a refused TLS handshake) closes the pipe: that is not an error here.
        if let input { try? inputPipe.fileHandleForWriting.write(contentsOf: input) }
        try inputPipe.fileHandleForWriting.close()
        let errorData = errorOutput.fileHandleForReading.readDataToEndOfFile()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: outputData, errorOutput: String(decoding: errorData, as: UTF8.self))
    }
}
