import Foundation

/// What the migration that made usernames case-insensitive writes, the same on every driver: each account's name key
/// (`UserRecord.nameKey(of:)`) and, where several accounts' names have the same key, which keep their names. The
/// oldest account of such a group (`createdAt`, then the user handle byte-wise) keeps its name; each later one, in
/// that order, gets the first free suffixed name (`UserRecord.migratedName`) and a `user.updated` event naming the
/// `username` change, in the migration's transaction.
public struct NameKeyMigration: Sendable, Equatable {
    /// An account as the migration reads it.
    public struct Account: Sendable, Equatable {
        public var id: [UInt8]
        public var name: String
        public var createdAt: Date

        public init(id: [UInt8], name: String, createdAt: Date) {
            self.id = id
            self.name = name
            self.createdAt = createdAt
        }
    }

    /// An account's row after the migration.
    public struct Row: Sendable, Equatable {
        public var id: [UInt8]
        public var name: String
        public var nameKey: String
        /// Whether the account lost its name to an older one's.
        public var renamed: Bool
    }

    /// Every account's row, oldest first.
    public let rows: [Row]

    /// The longest name the migration makes of a name that fits registration's bound.
    public static let maximumNameBytes = 64

    public init(accounts: [Account]) {
        let ordered = accounts.sorted { left, right in
            if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
            return left.id.lexicographicallyPrecedes(right.id)
        }
        // Every key an account holds before any rename, so that no suffixed name takes another account's.
        var taken = Set(ordered.map { UserRecord.nameKey(of: $0.name) })
        var kept: Set<String> = []
        var rows: [Row] = []
        for account in ordered {
            let key = UserRecord.nameKey(of: account.name)
            if kept.insert(key).inserted {
                rows.append(Row(id: account.id, name: account.name, nameKey: key, renamed: false))
                continue
            }
            let name = UserRecord.migratedName(account.name, maximumBytes: Self.maximumNameBytes) { taken.contains($0) }
            let newKey = UserRecord.nameKey(of: name)
            taken.insert(newKey)
            kept.insert(newKey)
            rows.append(Row(id: account.id, name: name, nameKey: newKey, renamed: true))
        }
        self.rows = rows
    }

    /// The type of a renamed account's event: the server's `user.updated`.
    public static let renameEventType = "user.updated"

    /// The payload of a renamed account's event, as the server's `user.updated` with `changes: ["username"]` writes
    /// it. The migration writes it without a UUID (the column came later): its ID is its sequence number's.
    public static func renameEventData(userID: [UInt8]) -> [UInt8] {
        let encoded = Data(userID).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return Array(#"{"changes":["username"],"userId":"\#(encoded)"}"#.utf8)
    }
}
