import Foundation
import Storage

/// The clauses of the store contract for usernames: one account per name key (`UserRecord.nameKey`: NFKC, then
/// lowercased), found by any spelling of it, the name as given kept for display.
extension StoreContract {
    static let usernameChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "usernames: every case and width of a name finds its account", run: caseVariantsFindTheAccount),
        StoreContractCheck(name: "usernames: a case variant is refused on every insert and rename", run: caseVariantsAreRefused),
        StoreContractCheck(name: "usernames: ß, the Turkish i and full width keep their Unicode meaning", run: nameKeysFollowUnicode),
        StoreContractCheck(name: "usernames: look-alikes are found by their skeleton, on every insert and rename", run: lookAlikesAreFound),
    ]

    public static func lookAlikesAreFound(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        // ѕсоре in Cyrillic letters, and "scope".
        let cyrillic = "\u{455}\u{441}\u{43E}\u{440}\u{435}"
        func lookAlike(_ name: String) throws -> UserRecord? {
            try store.transaction { transaction throws(StorageError) in try transaction.user(nameSkeleton: UserRecord.nameSkeleton(of: name)) }
        }
        try expectEqual(try lookAlike("scope"), nil, "no account yet")
        try register(store, StoreSamples.user(1, name: "Scope"), StoreSamples.credential(1, owner: 1))
        try expectEqual(try lookAlike(cyrillic)?.id, StoreSamples.userID(1), "registered: found by a Cyrillic look-alike")
        try expectEqual(try lookAlike("SCOPE")?.id, StoreSamples.userID(1), "and by a case variant")
        try expectEqual(
            try store.user(nameSkeleton: UserRecord.nameSkeleton(of: cyrillic))?.id,
            StoreSamples.userID(1),
            "and by the store's read outside a transaction"
        )
        try expectEqual(try lookAlike("scape"), nil, "another name")
        var other = StoreSamples.user(2, name: "other")
        try store.seedUser(other, credential: StoreSamples.credential(2, owner: 2))
        try expectEqual(try lookAlike("\u{43E}ther")?.id, StoreSamples.userID(2), "inserted: found by a Cyrillic о")
        other.name = "renamed"
        _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(other) }
        try expectEqual(try lookAlike("other"), nil, "a rename frees the old skeleton")
        try expectEqual(try lookAlike("renarned")?.id, StoreSamples.userID(2), "and takes the new one (rn looks like m)")
    }

    public static func caseVariantsFindTheAccount(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try register(store, StoreSamples.user(1, name: "Frank"), StoreSamples.credential(1, owner: 1))
        for spelling in ["Frank", "frank", "FRANK", "fRaNk", "Ｆｒａｎｋ", "ＦＲＡＮＫ"] {
            try expectEqual(try store.user(name: spelling)?.id, StoreSamples.userID(1), "user(name: \(spelling))")
            try expectEqual(
                try store.transaction { transaction throws(StorageError) in try transaction.user(name: spelling) }?.name,
                "Frank",
                "in a transaction, the name as registered: \(spelling)"
            )
        }
        try expectEqual(try store.user(name: "Franky"), nil, "another name")
        try register(store, StoreSamples.user(2, name: "José"), StoreSamples.credential(2, owner: 2))
        try expectEqual(try store.user(name: "JOSE\u{301}")?.id, StoreSamples.userID(2), "a decomposed É finds é")
    }

    public static func caseVariantsAreRefused(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try register(store, StoreSamples.user(1, name: "Frank"), StoreSamples.credential(1, owner: 1))
        try expectStorageError(.usernameTaken, "completeRegistration of a lowercase variant") { () throws(StorageError) in
            try register(store, StoreSamples.user(2, name: "frank"), StoreSamples.credential(2, owner: 2))
        }
        try expectStorageError(.usernameTaken, "insertUser of an uppercase variant") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(2, name: "FRANK"), credential: StoreSamples.credential(2, owner: 2))
        }
        try expectStorageError(.usernameTaken, "insertUser of a full-width variant") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(2, name: "ｆｒａｎｋ"), credential: StoreSamples.credential(2, owner: 2))
        }
        try expectEqual(try store.user(id: StoreSamples.userID(2)), nil, "refused user")
        var other = StoreSamples.user(2, name: "other")
        try store.seedUser(other, credential: StoreSamples.credential(2, owner: 2))
        other.name = "fRANK"
        try expectStorageError(.usernameTaken, "updateUser to another account's variant") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(other) }
        }
        try expectEqual(try store.user(id: other.id)?.name, "other", "a refused rename changes nothing")
        guard var frank = try store.user(id: StoreSamples.userID(1)) else {
            throw StoreContractFailure(message: "Frank is gone", file: #filePath, line: #line)
        }
        frank.name = "FRANK"
        try expect(try store.transaction { transaction throws(StorageError) in try transaction.updateUser(frank) }, "its own variant")
        try expectEqual(try store.user(name: "frank")?.name, "FRANK", "the new spelling is shown")
        frank.name = "francis"
        _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(frank) }
        try expectEqual(try store.user(name: "Frank"), nil, "the old key is free after a rename")
        other.name = "Frank"
        try expect(try store.transaction { transaction throws(StorageError) in try transaction.updateUser(other) }, "the freed name")
        try expectEqual(try store.user(name: "FRANK")?.id, other.id, "found under its new owner")
    }

    public static func nameKeysFollowUnicode(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let names = ["straße", "STRASSE", "ılık", "ilik", "İlik"]
        for (index, name) in names.enumerated() {
            let number = UInt8(index + 1)
            try store.seedUser(StoreSamples.user(number, name: name), credential: StoreSamples.credential(number, owner: number))
        }
        try expectEqual(try store.user(name: "STRAßE")?.name, "straße", "ß lowercases to itself")
        try expectEqual(try store.user(name: "strasse")?.name, "STRASSE", "ss is not ß")
        try expectEqual(try store.user(name: "ILIK")?.name, "ilik", "I lowercases to i, not the dotless ı")
        try expectEqual(try store.user(name: "ılık")?.name, "ılık", "the dotless ı is a letter of its own")
        try expectEqual(try store.user(name: "i\u{307}lik")?.name, "İlik", "İ lowercases to i with a combining dot")
        try expectStorageError(.usernameTaken, "ß's uppercase is ß's") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(9, name: "STRAßE"), credential: StoreSamples.credential(9, owner: 9))
        }
    }
}
