import CryptoCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A random 32-byte secret kept in the data folder, created on first start with mode 0600 from its first byte: it is
/// written to a temporary file opened `O_CREAT | O_EXCL` with that mode (never a file made with the default mode and
/// narrowed afterwards), synced, then linked into place, so that a reader sees either no file or the whole secret,
/// and two processes starting at once keep the first one's.
enum ServerSecret {
    static func load(path: String) throws -> [UInt8] {
        if let data = FileManager.default.contents(atPath: path), data.count == 32 { return Array(data) }
        let secret = SystemRandom().bytes(count: 32)
        let temporaryPath = path + ".\(getpid()).tmp"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission) }
        let written = secret.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        defer { unlink(temporaryPath) }
        guard written == secret.count, synced else { throw CocoaError(.fileWriteUnknown) }
        if link(temporaryPath, path) != 0 {
            // Another process created it first (or a short file is in the way): use what is there when it is whole.
            guard errno == EEXIST, let data = FileManager.default.contents(atPath: path), data.count == 32 else {
                throw CocoaError(.fileWriteFileExists)
            }
            return Array(data)
        }
        return secret
    }
}
