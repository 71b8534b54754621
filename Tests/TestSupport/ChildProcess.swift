import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs programs (curl, openssl, passkeyd) for the loopback and restart tests.
public enum ChildProcess {
    /// Children are spawned one at a time across the test run: a pipe made for one child must get its close-on-exec
    /// flag before any other child is spawned, or that child inherits an end. No test uses Foundation's `Process`
    /// (see `SpawnedProcess`).
    private static let launching = NSLock()

    /// Runs `body`, which makes a child's pipes and spawns it (`spawnWhileLaunching`), with no other launch meanwhile.
    static func whileLaunching<Value>(_ body: () throws -> Value) rethrows -> Value {
        launching.lock()
        defer { launching.unlock() }
        return try body()
    }

    /// `posix_spawn` of `executable` with `actions`, every descriptor above 2 closed in the child (when glibc offers
    /// `posix_spawn_file_actions_addclosefrom_np`) and no signal blocked in it; `posix_spawn`'s result. Called inside
    /// `whileLaunching`.
    ///
    /// A child inherits the spawning thread's signal mask, and the test runner's threads block most signals: a child
    /// that does not set its own mask, such as PgBouncer, then never receives the `SIGTERM` that stops it, and outlived
    /// every test run (1,878 of them on this machine one morning).
    static func spawnWhileLaunching(
        _ pid: inout pid_t,
        _ executable: String,
        _ actions: inout posix_spawn_file_actions_t,
        _ argv: [UnsafeMutablePointer<CChar>?]
    ) -> Int32 {
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        return posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    }

    /// A shell's exit status from `waitpid`'s: the exit code, or 128 plus the signal that ended the child.
    static func exitStatus(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    public struct Result: Sendable {
        public let status: Int32
        public let output: Data
        public let errorOutput: String
    }

    /// Runs `executable` to completion, feeding `input` on standard input, with posix_spawn and three pipes.
    ///
    /// Not Foundation's `Process`: its `run()` crashed (a bad memmove, SIGSEGV) while the flood tests of the same test
    /// process held thousands of descriptors. The pipes are made close-on-exec, so that no other child started at the
    /// same time inherits one of their ends (its standard output would then never reach end of file), and the child
    /// closes every descriptor above 2 when glibc offers `posix_spawn_file_actions_addclosefrom_np`.
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> Result {
        // The pipes are made and the child spawned under the launch lock, so that no child this process starts can
        // inherit an end between `pipe` and its `FD_CLOEXEC`.
        launching.lock()
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard pipe(&inputPipe) == 0, pipe(&outputPipe) == 0, pipe(&errorPipe) == 0 else {
            launching.unlock()
            for descriptor in inputPipe + outputPipe + errorPipe where descriptor >= 0 { close(descriptor) }
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable])
        }
        for descriptor in inputPipe + outputPipe + errorPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = spawnWhileLaunching(&pid, executable, &actions, argv)
        launching.unlock()
        close(inputPipe[0])
        close(outputPipe[1])
        close(errorPipe[1])
        let writer = FileHandle(fileDescriptor: inputPipe[1], closeOnDealloc: true)
        let outputReader = FileHandle(fileDescriptor: outputPipe[0], closeOnDealloc: true)
        let errorReader = FileHandle(fileDescriptor: errorPipe[0], closeOnDealloc: true)
        guard spawned == 0 else { throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable]) }
        // Standard error is read on its own thread while standard output is read here, and the input is written on a
        // third: a child that fills one pipe (more than 64 KiB of output) while the other is drained first would wait
        // forever, and so would this. Plain threads, not Dispatch's global queue: these block on pipes, and tests that
        // run many children at once (and use the global queue themselves) would use up its few threads, which
        // libdispatch only adds to after a second's wait (the Apple stall test saw 1 s and 2 s answers).
        let errorData = Mutex(Data())
        let drained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = errorReader.readDataToEndOfFile()
            errorData.withLock { $0 = data }
            drained.signal()
        }
        Thread.detachNewThread {
            // A child that exits before reading (e.g. a refused TLS handshake) closes the pipe: that is not an error here.
            if let input { try? writer.write(contentsOf: input) }
            try? writer.close()
            drained.signal()
        }
        let outputData = outputReader.readDataToEndOfFile()
        drained.wait()
        drained.wait()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return Result(status: exitStatus(status), output: outputData, errorOutput: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not
    /// declare; nil when the C library lacks it.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Runs `executable` to completion with posix_spawn and waitpid, its output in a temporary file. For programs
    /// that leave a daemon behind (`pg_ctl start`): Foundation's `waitUntilExit` was seen never to return for them.
    public static func spawnAndWait(_ executable: String, _ arguments: [String]) throws -> Result {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-child-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = whileLaunching { spawnWhileLaunching(&pid, executable, &actions, argv) }
        guard spawned == 0 else { throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable]) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = FileManager.default.contents(atPath: outputPath) ?? Data()
        return Result(status: exitStatus(status), output: output, errorOutput: String(decoding: output, as: UTF8.self))
    }
}
