import Foundation

/// A fresh folder under the system temporary directory, removed by `remove()`.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("passkeyd-storage-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path for a new database file inside the folder.
    func newDatabasePath() -> String {
        url.appendingPathComponent("\(UUID().uuidString).sqlite").path
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
