import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock (`flock`) on the data folder, held as long as the value lives: `serve` holds it shared (several
/// servers may share a folder, as they share a database), `restore` exclusive, so that a restore never writes under a
/// running server and a server does not start on a folder being restored. The kernel drops it when the process ends,
/// however it ends.
final class DataFolderLock {
    enum Mode {
        case shared, exclusive
    }

    private let descriptor: Int32

    /// Takes the lock at once; nil when the other mode holds it (a server runs, or a restore does).
    /// - Throws: when the folder cannot be opened.
    init?(folder: String, mode: Mode) throws {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: folder]) }
        guard flock(descriptor, (mode == .shared ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}
