import Foundation
import Storage

/// The clauses of the store contract for users: their fields, their unique handles and names, the lookups by email and
/// the name-prefix cursor of the admin API.
extension StoreContract {
    static let userChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "usernames are unique", run: usernamesAreUnique),
        StoreContractCheck(name: "user handles are unique", run: userIDsAreUnique),
        StoreContractCheck(name: "users keep their app account token, email and display-name default", run: userFieldsRoundTrip),
        StoreContractCheck(name: "updateUser writes the mutable fields only", run: updateUserKeepsTheRest),
        StoreContractCheck(name: "users(verifiedEmail:) folds ASCII case and skips unverified", run: usersByVerifiedEmail),
        StoreContractCheck(name: "users by name prefix: name keys, byte-wise order, cursor, limit", run: usersArePagedByNamePrefix),
        StoreContractCheck(name: "users by email: ASCII case-insensitive, verified or not, ordered, limited", run: usersAreFoundByEmail),
    ]

    public static func usernamesAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try register(store, StoreSamples.user(1, name: "alice"), StoreSamples.credential(1, owner: 1))
        try expectStorageError(.usernameTaken, "same username") { () throws(StorageError) in
            try register(store, StoreSamples.user(2, name: "alice"), StoreSamples.credential(2, owner: 2))
        }
        try expectStorageError(.usernameTaken, "same username, in a transaction") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(2, name: "alice"), credential: StoreSamples.credential(2, owner: 2))
        }
        try expectEqual(try store.user(id: StoreSamples.userID(2)), nil, "refused user")
        try expectEqual(try store.credential(id: StoreSamples.credential(2, owner: 2).id), nil, "refused credential")
        try expectEqual(try store.user(name: "alice")?.id, StoreSamples.userID(1), "first owner keeps the name")
        try expectStorageError(.usernameTaken, "a case variant") { () throws(StorageError) in
            try register(store, StoreSamples.user(2, name: "Alice"), StoreSamples.credential(2, owner: 2))
        }
        try register(store, StoreSamples.user(2, name: "Alicia"), StoreSamples.credential(2, owner: 2))
    }

    public static func userIDsAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try register(store, StoreSamples.user(1), StoreSamples.credential(1, owner: 1))
        try expectStorageError(.duplicateKey, "same user handle") { () throws(StorageError) in
            try register(store, StoreSamples.user(1, name: "other"), StoreSamples.credential(2, owner: 1))
        }
        try expectStorageError(.duplicateKey, "same user handle, in a transaction") { () throws(StorageError) in
            try store.seedUser(StoreSamples.user(1, name: "other"), credential: StoreSamples.credential(2, owner: 1))
        }
        try expectEqual(try store.user(name: "other"), nil, "refused user")
        try expectEqual(try store.credential(id: StoreSamples.credential(2, owner: 1).id), nil, "refused credential")
    }

    public static func userFieldsRoundTrip(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var user = StoreSamples.user(1)
        user.email = "Jane.Doe@Example.org"
        user.emailVerified = true
        user.displayNameIsDefault = true
        try store.seedUser(user, credential: StoreSamples.credential(1, owner: 1))
        try expectEqual(try store.user(id: user.id), user, "user(id:)")
        try expectEqual(try store.user(name: user.name), user, "user(name:)")
        try expectEqual(try store.user(id: user.id)?.appAccountToken, StoreSamples.appAccountToken(1), "the token itself")
        var twin = StoreSamples.user(2)
        twin.appAccountToken = user.appAccountToken
        try expectStorageError(.duplicateKey, "the same app account token") { () throws(StorageError) in
            try store.seedUser(twin, credential: StoreSamples.credential(2, owner: 2))
        }
        try expectEqual(try store.user(id: twin.id), nil, "refused user")
        var long = StoreSamples.user(3)
        long.email = String(repeating: "a", count: UserRecord.maximumEmailBytes - 11) + "@example.org"
        try expectStorageError(.invalidRecord, "an email over the bound") { () throws(StorageError) in
            try store.seedUser(long, credential: StoreSamples.credential(3, owner: 3))
        }
        long.email = String(long.email!.dropFirst())
        try store.seedUser(long, credential: StoreSamples.credential(3, owner: 3))
        try expectEqual(try store.user(id: long.id)?.email, long.email, "an email at the bound")
    }

    public static func updateUserKeepsTheRest(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let original = StoreSamples.user(1)
        try store.seedUser(original, credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2, name: "taken"), credential: StoreSamples.credential(2, owner: 2))
        var changed = original
        changed.name = "renamed"
        changed.displayName = "Jane Appleseed"
        changed.displayNameIsDefault = false
        changed.email = "jane@example.org"
        changed.emailVerified = true
        changed.appAccountToken = StoreSamples.appAccountToken(9)
        changed.createdAt = StoreSamples.now
        try expect(try store.transaction { transaction throws(StorageError) in try transaction.updateUser(changed) }, "updated")
        var expected = changed
        expected.appAccountToken = original.appAccountToken
        expected.createdAt = original.createdAt
        try expectEqual(try store.user(id: original.id), expected, "mutable fields written, token and createdAt kept")
        try expectEqual(try store.user(name: original.name), nil, "the old name is free")
        changed.name = "taken"
        try expectStorageError(.usernameTaken, "another user's name") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(changed) }
        }
        try expectEqual(try store.user(id: original.id), expected, "a refused update changes nothing")
        try expect(
            !(try store.transaction { transaction throws(StorageError) in try transaction.updateUser(StoreSamples.user(7)) }),
            "an unknown user"
        )
        try expectEqual(try store.user(id: StoreSamples.userID(7)), nil, "nothing made for an unknown user")
    }

    public static func usersByVerifiedEmail(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        func seed(_ number: UInt8, _ email: String?, verified: Bool, createdAt: TimeInterval) throws(StorageError) -> UserRecord {
            var user = StoreSamples.user(number)
            user.email = email
            user.emailVerified = verified
            user.createdAt = StoreSamples.now.addingTimeInterval(createdAt)
            try store.seedUser(user, credential: StoreSamples.credential(number, owner: number))
            return user
        }
        let later = try seed(1, "Jane@Example.ORG", verified: true, createdAt: -10)
        let earlier = try seed(2, "jane@example.org", verified: true, createdAt: -20)
        _ = try seed(3, "jane@example.org", verified: false, createdAt: -30)
        _ = try seed(4, nil, verified: true, createdAt: -40)
        let accented = try seed(5, "ÉLISE@example.org", verified: true, createdAt: -50)
        func users(_ email: String) throws(StorageError) -> [UserRecord] {
            try store.transaction { transaction throws(StorageError) in try transaction.users(verifiedEmail: email) }
        }
        try expectEqual(try users("JANE@example.org"), [earlier, later], "ASCII case folded, unverified skipped, by createdAt")
        try expectEqual(try users("ÉLISE@EXAMPLE.ORG"), [accented], "ASCII folded around a non-ASCII letter")
        try expectEqual(try users("élise@example.org"), [], "non-ASCII letters compare exactly")
        try expectEqual(try users("nobody@example.org"), [], "no match")
    }

    public static func usersArePagedByNamePrefix(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        // By name key, byte-wise: "a" < "ab" < "abc" < "abd" < "ab\u{10FFFF}" < "ac" < "b" < "z" < "é" (0xC3 0xA9) < "😀".
        let names = ["ac", "abd", "Z", "a", "AB", "abc", "é", "😀", "ab\u{10FFFF}", "b"]
        for (index, name) in names.enumerated() {
            let number = UInt8(index + 1)
            try store.seedUser(StoreSamples.user(number, name: name), credential: StoreSamples.credential(number, owner: number))
        }
        func page(_ prefix: String, after: String? = nil, limit: Int = 100) throws(StorageError) -> [String] {
            try store.transaction { transaction throws(StorageError) in try transaction.users(namePrefix: prefix, after: after, limit: limit) }
                .map(\.name)
        }
        try expectEqual(try page(""), ["a", "AB", "abc", "abd", "ab\u{10FFFF}", "ac", "b", "Z", "é", "😀"], "every user, by name key")
        try expectEqual(try page("ab"), ["AB", "abc", "abd", "ab\u{10FFFF}"], "prefix ab")
        try expectEqual(try page("aB", after: "ABC"), ["abd", "ab\u{10FFFF}"], "prefix ab after a cursor, in any case")
        try expectEqual(try page("ab", limit: 2), ["AB", "abc"], "prefix ab, limit 2")
        try expectEqual(try page("a", after: "ab", limit: 2), ["abc", "abd"], "cursor and limit")
        try expectEqual(try page("Z"), ["Z"], "prefixes compare case-insensitively")
        try expectEqual(try page("Ａ", limit: 1), ["a"], "and width-insensitively")
        try expectEqual(try page("É"), ["é"], "a two-byte prefix")
        try expectEqual(try page("ab", after: "ab\u{10FFFF}"), [], "after the last one")
        try expectEqual(try page("", limit: 0), [], "limit 0")
        let all = try page("")
        var walked: [String] = []
        var cursor: String?
        repeat {
            let next = try page("", after: cursor, limit: 3)
            walked += next
            cursor = next.last
            if next.count < 3 { break }
        } while true
        try expectEqual(walked, all, "pages of 3 walk every user once")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.users(namePrefix: "ac", after: nil, limit: 5) },
            [StoreSamples.user(1, name: "ac")],
            "whole records"
        )
    }

    public static func usersAreFoundByEmail(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let emails: [(String?, Bool)] = [("Ann@Example.com", false), ("ann@example.com", true), ("ÄNN@example.com", true), (nil, false)]
        for (index, (email, verified)) in emails.enumerated() {
            let number = UInt8(index + 1)
            var user = StoreSamples.user(number)
            user.email = email
            user.emailVerified = verified
            user.createdAt = StoreSamples.now.addingTimeInterval(Double(index))
            try store.seedUser(user, credential: StoreSamples.credential(number, owner: number))
        }
        func found(_ email: String, limit: Int = 10) throws(StorageError) -> [[UInt8]] {
            try store.transaction { transaction throws(StorageError) in try transaction.users(email: email, limit: limit) }.map(\.id)
        }
        try expectEqual(try found("ANN@example.COM"), [StoreSamples.userID(1), StoreSamples.userID(2)], "ASCII case-insensitive, verified or not")
        try expectEqual(try found("änn@example.com"), [], "non-ASCII letters compare exactly")
        try expectEqual(try found("ÄNN@EXAMPLE.COM"), [StoreSamples.userID(3)], "the ASCII part still folds")
        try expectEqual(try found("ann@example.com", limit: 1), [StoreSamples.userID(1)], "limit, oldest first")
        try expectEqual(try found(""), [], "no email matches nothing")
    }
}
