import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child that a test keeps running (`passkeyd serve`, the webhook receiver, curl clients side by side), started
/// with `posix_spawn` as `ChildProcess` starts its children: one launch at a time, every descriptor above 2 closed in
/// the child.
///
/// Not Foundation's `Process`: to close the parent's descriptors in the child, its `run()` lists `/proc/self/fd` and
/// copies each entry's whole 256-byte name out of the directory buffer, past the end of the last entry. A parallel
/// test run crashed there (SIGSEGV in `memcpy`) when the test process held hundreds of sockets (the connection
/// floods) and the copy ran off the end of the buffer's memory.
///
/// `@unchecked Sendable`: the exit status is only touched under `lock`.
public final class SpawnedProcess: @unchecked Sendable {
    /// Where the child's standard output or error goes.
    public enum Output {
        /// `/dev/null`.
        case null
        /// Appended to the file at this path (created when missing).
        case file(String)
        /// A pipe whose read end is `standardOutput`; for standard output only.
        case pipe
    }

    public let processIdentifier: pid_t
    /// The read end of standard output, when it was asked for as `.pipe`.
    public let standardOutput: FileHandle?
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `executable` with `arguments`; standard input is `/dev/null`.
    public init(
        _ executable: String,
        _ arguments: [String],
        standardOutput output: Output = .null,
        standardError: Output = .null
    )
        throws
    {
        var pid: pid_t = 0
        // The pipe is made and its ends marked close-on-exec with no other launch meanwhile (see `ChildProcess`).
        let (spawned, outputPipe) = try ChildProcess.whileLaunching { () throws -> (Int32, [Int32]) in
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            var outputPipe: [Int32] = [-1, -1]
            for (descriptor, target) in [(Int32(1), output), (Int32(2), standardError)] {
                switch target {
                case .null:
                    posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
                case .file(let path):
                    posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
                case .pipe:
                    precondition(descriptor == 1, "only standard output is read through a pipe")
                    guard pipe(&outputPipe) == 0 else { throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable]) }
                    _ = fcntl(outputPipe[0], F_SETFD, FD_CLOEXEC)
                    _ = fcntl(outputPipe[1], F_SETFD, FD_CLOEXEC)
                    posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
                }
            }
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            return (ChildProcess.spawnWhileLaunching(&pid, executable, &actions, argv), outputPipe)
        }
        if outputPipe[1] >= 0 { close(outputPipe[1]) }
        guard spawned == 0 else {
            if outputPipe[0] >= 0 { close(outputPipe[0]) }
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable])
        }
        processIdentifier = pid
        standardOutput = outputPipe[0] >= 0 ? FileHandle(fileDescriptor: outputPipe[0], closeOnDealloc: true) : nil
    }

    /// Whether the child has not exited yet (an exited child is reaped here).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard status == nil else { return false }
        var raw: Int32 = 0
        guard waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier else { return true }
        status = raw
        return false
    }

    /// Waits for the child to exit.
    public func waitUntilExit() {
        lock.lock()
        defer { lock.unlock() }
        guard status == nil else { return }
        var raw: Int32 = 0
        while waitpid(processIdentifier, &raw, 0) == -1 && errno == EINTR {}
        status = raw
    }

    /// The exit status of a child that has exited, or 128 plus the signal that ended it.
    public var terminationStatus: Int32 {
        waitUntilExit()
        lock.lock()
        defer { lock.unlock() }
        return ChildProcess.exitStatus(status ?? 0)
    }
}
