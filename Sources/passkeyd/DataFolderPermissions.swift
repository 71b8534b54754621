import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The data folder holds secrets (`server-secret`, `apple-refresh-token-key`, the TLS key) and the database: passkeyd
/// creates the folder 0700 and every file in it 0600, and warns at start-up about what others can read or write.
enum DataFolderPermissions {
    /// The files of the data folder that must be private.
    static let privateFiles = [
        SecretSource.serverSecret, SecretSource.appleRefreshTokenKey, "tls-private-key.pem", "passkeyd.sqlite", "passkeyd.sqlite-wal",
        "passkeyd.sqlite-shm",
    ]

    /// Creates `path` (and missing parents) when missing; the folder itself is made 0700 by `mkdir`, never widened.
    static func createFolder(_ path: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { return }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw CocoaError(.fileWriteNoPermission) }
    }

    /// One warning per entry of the folder (the folder, the private files, and `extraFiles` such as the database)
    /// that group or others may access.
    static func warnings(folder: String, extraFiles: [String] = []) -> [String] {
        var warnings: [String] = []
        let paths = [folder] + privateFiles.map { folder + "/" + $0 } + extraFiles
        for path in Set(paths).sorted() {
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            let mode = status.st_mode & 0o777
            guard mode & 0o077 != 0 else { continue }
            let wanted = path == folder ? "0700" : "0600"
            warnings.append("\(path) is open to group or others (mode 0\(String(mode, radix: 8))); chmod \(wanted) it")
        }
        return warnings
    }
}
