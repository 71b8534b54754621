import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Files of backups and restores: written private (0600) from their first byte and synced, read with a bound.
enum PrivateFile {
    /// Writes `content` to a new file at `path` (refused when it exists), mode 0600, synced to the disk.
    static func create(_ path: String, _ content: [UInt8]) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot create \(path)") }
        defer { close(descriptor) }
        var written = 0
        while written < content.count {
            let count = content[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw failure("cannot write \(path)") }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw failure("cannot sync \(path)") }
    }

    /// Writes `content` beside `path`, then renames it into place (replacing what is there), so that `path` holds
    /// either its old content or the whole new one.
    static func replace(_ path: String, _ content: [UInt8]) throws {
        let temporary = path + ".restoring"
        unlink(temporary)
        try create(temporary, content)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw failure("cannot rename \(temporary) to \(path)")
        }
    }

    /// The content of `path`, nil when it does not exist.
    static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    /// Syncs the folder `path`, so that the names created or renamed in it survive a crash.
    static func syncFolder(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("cannot open \(path)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("cannot sync \(path)") }
    }

    private static func failure(_ message: String) -> CocoaError {
        CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(message) (\(String(cString: strerror(errno))))"])
    }
}
