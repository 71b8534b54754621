import Foundation
import Storage

/// What both drivers' migration to name keys (SQLite 10, PostgreSQL 9) must leave of the same pre-migration accounts,
/// each test writing `accounts` in its driver's old schema: the oldest of each group of names with one key keeps its
/// name, the later ones (by creation, then user handle) get the first free `-n` suffix and a `user.updated` event.
public enum UsernameKeyMigration {
    /// The accounts before the migration: number (`StoreSamples.userID`), name, creation time (seconds since 2001).
    public static let accounts: [(number: UInt8, name: String, createdAt: Double)] = [
        (1, "Frank", 10), (2, "frank", 5), (3, "FRANK", 20), (4, "frank-2", 30), (5, "straße", 1), (6, "STRASSE", 2),
        (7, "Bob", 40), (8, "bob", 40),
    ]

    /// The names after it, by number.
    public static let migratedNames: [UInt8: String] = [
        1: "Frank-3", 2: "frank", 3: "FRANK-4", 4: "frank-2", 5: "straße", 6: "STRASSE", 7: "Bob", 8: "bob-2",
    ]

    /// A distinct app account token per account, for the schemas that have the column.
    public static func appAccountToken(_ number: UInt8) -> String {
        StoreSamples.appAccountToken(number).uuidString.lowercased()
    }

    /// Fails unless `store` holds the migrated names, finds each by any case, refuses a variant of one, and has one
    /// `user.updated` event naming `username` per renamed account, in the order of the renames.
    public static func check(_ store: any PasskeyStore) throws {
        for (number, name) in migratedNames {
            try expectEqual(try store.user(id: StoreSamples.userID(number))?.name, name, "account \(number)'s name")
            try expectEqual(try store.user(name: name.capitalized)?.id, StoreSamples.userID(number), "\(name) found capitalised")
        }
        try expectEqual(try store.user(name: "FRANK")?.id, StoreSamples.userID(2), "the oldest Frank keeps the name")
        try expectStorageError(.usernameTaken, "a variant of a migrated name") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(20, name: "frank-3"), credential: StoreSamples.credential(20, owner: 20))
        }
        let events = try store.events(after: 0, limit: 10)
        try expectEqual(events.map(\.type), ["user.updated", "user.updated", "user.updated"], "one event per renamed account")
        try expectEqual(events.map(\.userID), [1, 3, 8].map { Optional(StoreSamples.userID($0)) }, "renamed in creation order")
        // Written before the UUID column existed: their IDs are their sequence numbers' (`EventRecord.publicID`).
        try expectEqual(events.map(\.uuid), [nil, nil, nil], "no UUID")
        try expectEqual(events.map(\.publicID), events.map { "evt_\($0.id)" }, "legacy IDs")
        for (event, number) in zip(events, [UInt8(1), 3, 8]) {
            let handle = Data(StoreSamples.userID(number)).base64EncodedString().replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "=", with: "")
            try expectEqual(String(decoding: event.data, as: UTF8.self), #"{"changes":["username"],"userId":"\#(handle)"}"#, "the payload")
        }
    }
}
