import Foundation
import Storage

#if canImport(Glibc)
import Glibc
#endif

extension SQLiteStore {
    /// The schema version this build writes (`PRAGMA user_version` after its migrations).
    public static var latestSchemaVersion: Int { SQLiteMigrations.latestVersion }

    /// Copies the database file at `source` to a new file at `destination` (created 0600; refused when it exists) as
    /// one consistent snapshot, while other connections and processes go on reading and writing it (SQLite's online
    /// backup API). Neither file is migrated. Returns the copy's schema version, after checking that the copy reads
    /// whole (`PRAGMA quick_check`).
    /// - Throws: `storage.unavailable` when a file cannot be opened, read or written, or the copy does not check.
    public static func backUp(databaseAt source: String, to destination: String) throws(StorageError) -> Int {
        guard FileManager.default.fileExists(atPath: source) else { throw StorageError(.unavailable, "no database at \(source)") }
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageError(.unavailable, "cannot create \(destination) (\(String(cString: strerror(errno))))") }
        Glibc.close(descriptor)
        do throws(SQLiteError) {
            let reader = try SQLiteConnection(path: source, readOnly: true)
            try reader.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
            let copy = try SQLiteConnection(path: destination)
            try reader.copy(into: copy)
            // The copy keeps the source's WAL mode; a checkpointed file with no -wal beside it is what a backup holds.
            try copy.execute("PRAGMA journal_mode = DELETE")
            let check = try copy.statement("PRAGMA quick_check").run([]) { row throws(SQLiteError) in row.text(0) }
            guard check == ["ok"] else { throw SQLiteError(.corrupt, "the copy does not check: \(check.prefix(3).joined(separator: "; "))") }
            let version = try SQLiteMigrations.currentVersion(copy)
            guard fsync(descriptorFor: destination) else { throw SQLiteError(.failed, "cannot sync \(destination)") }
            return version
        } catch {
            throw error.storageError
        }
    }

    /// The schema version of the database file at `path`, read without migrating it.
    public static func schemaVersion(databaseAt path: String) throws(StorageError) -> Int {
        do throws(SQLiteError) {
            return try SQLiteMigrations.currentVersion(try SQLiteConnection(path: path, readOnly: true))
        } catch {
            throw error.storageError
        }
    }

    private static func fsync(descriptorFor path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        return Glibc.fsync(descriptor) == 0
    }
}
