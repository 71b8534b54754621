import Storage
import StorageSQLite
import TestSupport

/// A `PasskeyStore` implementation under test.
enum StoreDriver: CaseIterable, CustomStringConvertible {
    case inMemory
    case sqliteInMemory
    case sqliteFile

    var description: String {
        switch self {
        case .inMemory: "InMemoryStore"
        case .sqliteInMemory: "SQLiteStore.inMemory()"
        case .sqliteFile: "SQLiteStore(path:)"
        }
    }

    /// Runs `body` with a factory of fresh stores of this driver, removing any files afterwards.
    func withFactory(_ body: (StoreFactory) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try body {
            switch self {
            case .inMemory: InMemoryStore()
            case .sqliteInMemory: try SQLiteStore.inMemory()
            case .sqliteFile: try SQLiteStore(path: directory.newDatabasePath())
            }
        }
    }
}
