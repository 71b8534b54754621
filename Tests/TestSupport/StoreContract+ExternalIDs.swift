import Foundation
import Storage

/// The clauses of the store contract for external ids (`UserRecord.externalID`, the app's own user id): kept as given,
/// found byte for byte, unique among the accounts that have one, bounded.
extension StoreContract {
    static let externalIDChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "external ids: kept, found byte for byte, changed and removed", run: externalIDsAreKeptAndFound),
        StoreContractCheck(name: "external ids: one account per id, on every insert and update", run: externalIDsAreUnique),
        StoreContractCheck(name: "external ids: empty and oversized ids are refused", run: externalIDsAreBounded),
    ]

    public static func externalIDsAreKeptAndFound(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var user = StoreSamples.user(1, name: "frank")
        user.externalID = "firebase|Uid-42"
        var passkey = StoreSamples.credential(1, owner: 1)
        passkey.signCount = 5
        try register(store, user, passkey)
        try store.seedUser(StoreSamples.user(2, name: "without"), credential: StoreSamples.credential(2, owner: 2))
        try expectEqual(try store.user(id: user.id)?.externalID, "firebase|Uid-42", "kept by completeRegistration")
        try expectEqual(try store.user(id: StoreSamples.userID(2))?.externalID, nil, "an account without one")
        let found = try store.transaction { transaction throws(StorageError) in
            (
                try transaction.user(externalID: "firebase|Uid-42")?.id, try transaction.user(externalID: "FIREBASE|UID-42")?.id,
                try transaction.user(externalID: "firebase|Uid-4")?.id
            )
        }
        try expectEqual(found.0, user.id, "found by its id")
        try expectEqual(found.1, nil, "compared byte for byte, not case-insensitively")
        try expectEqual(found.2, nil, "not by a prefix")
        try expectEqual(try expectedSignIn(store, expecting: passkey, signCount: 6, session: 1).externalID, "firebase|Uid-42", "a sign-in's owner")
        user.externalID = "Uid-43"
        try expect(try store.transaction { transaction throws(StorageError) in try transaction.updateUser(user) }, "changed")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.user(externalID: "firebase|Uid-42") },
            nil,
            "the old id is free"
        )
        user.externalID = nil
        try expect(try store.transaction { transaction throws(StorageError) in try transaction.updateUser(user) }, "removed")
        try expectEqual(try store.user(id: user.id)?.externalID, nil, "removed")
        try expectEqual(try store.transaction { transaction throws(StorageError) in try transaction.user(externalID: "Uid-43") }, nil, "gone")
    }

    public static func externalIDsAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var first = StoreSamples.user(1, name: "first")
        first.externalID = "42"
        try store.seedUser(first, credential: StoreSamples.credential(1, owner: 1))
        var second = StoreSamples.user(2, name: "second")
        second.externalID = "42"
        try expectStorageError(.externalIDTaken, "insertUser with another account's id") { () throws(StorageError) in
            try store.seedUser(second, credential: StoreSamples.credential(2, owner: 2))
        }
        try expectStorageError(.externalIDTaken, "completeRegistration with another account's id") { () throws(StorageError) in
            try register(store, second, StoreSamples.credential(2, owner: 2))
        }
        second.externalID = nil
        try store.seedUser(second, credential: StoreSamples.credential(2, owner: 2))
        var third = StoreSamples.user(3, name: "third")
        third.externalID = nil
        try store.seedUser(third, credential: StoreSamples.credential(3, owner: 3))
        second.externalID = "42"
        try expectStorageError(.externalIDTaken, "updateUser to another account's id") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(second) }
        }
        try expectEqual(try store.user(id: second.id)?.externalID, nil, "a refused update changes nothing")
        try expect(try store.transaction { transaction throws(StorageError) in try transaction.updateUser(first) }, "its own id again")
        try expect(try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: first.id) }, "deleted")
        try expect(try store.transaction { transaction throws(StorageError) in try transaction.updateUser(second) }, "a deleted account's id is free")
    }

    public static func externalIDsAreBounded(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        for (externalID, what) in [("", "empty"), (String(repeating: "é", count: 128), "256 bytes")] {
            var user = StoreSamples.user(1, name: "frank")
            user.externalID = externalID
            try expectStorageError(.invalidRecord, "insertUser with an \(what) id") { () throws(StorageError) in
                try store.seedUser(user, credential: StoreSamples.credential(1, owner: 1))
            }
        }
        var user = StoreSamples.user(1, name: "frank")
        user.externalID = String(repeating: "x", count: UserRecord.maximumExternalIDBytes)
        try store.seedUser(user, credential: StoreSamples.credential(1, owner: 1))
        try expectEqual(try store.user(id: user.id)?.externalID?.utf8.count, UserRecord.maximumExternalIDBytes, "the longest id")
    }
}
