import Foundation
import Storage

/// The clauses of the store contract for imported password hashes: one per account, replaced by a new one, deleted
/// alone or with the account, bounded, and never for an account that does not exist.
extension StoreContract {
    static let passwordChecks: [StoreContractCheck] = [
        StoreContractCheck(
            name: "password hashes: one per account, replaced, deleted alone and with the account",
            run: passwordHashesAreKeptPerAccount
        ),
        StoreContractCheck(name: "password hashes: none for a missing account, none out of bounds", run: passwordHashesAreRefusedOutOfBounds),
        StoreContractCheck(
            name: "password hashes: retired only for accounts with a passkey stored by the cutoff, within the limit",
            run: passwordHashesAreRetiredAfterAPasskey
        ),
    ]

    public static func passwordHashesAreRetiredAfterAPasskey(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let tenDaysAgo = StoreSamples.now.addingTimeInterval(-10 * 86_400)
        try store.seedUser(StoreSamples.user(1, name: "ada"), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2, name: "bob"), credential: StoreSamples.credential(2, owner: 2, createdAt: tenDaysAgo))
        try store.seedUser(StoreSamples.user(3, name: "cy"), appleIdentity: StoreSamples.appleIdentity("001.c", owner: 3))
        try store.seedUser(StoreSamples.user(4, name: "dee"), credential: StoreSamples.credential(4, owner: 4, createdAt: tenDaysAgo))
        try store.transaction { transaction throws(StorageError) in
            for number: UInt8 in 1...3 {
                try transaction.setPasswordHash(
                    PasswordHashRecord(
                        userID: StoreSamples.userID(number),
                        hash: "$2b$10$" + String(repeating: "a", count: 53),
                        createdAt: tenDaysAgo
                    )
                )
            }
        }
        func hashes() throws -> [UInt8] {
            try (1...3).filter { number in
                try store.transaction { transaction throws(StorageError) in try transaction.passwordHash(userID: StoreSamples.userID(UInt8(number))) }
                    != nil
            }.map(UInt8.init)
        }
        let dayAgo = StoreSamples.now.addingTimeInterval(-86_400)
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.retirePasswordHashes(passkeyStoredBefore: dayAgo, limit: 0) },
            0,
            "nothing past the limit"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.retirePasswordHashes(passkeyStoredBefore: dayAgo, limit: 10)
            },
            1,
            "only bob's passkey is older than the cutoff (dee has no hash)"
        )
        try expectEqual(try hashes(), [1, 3], "ada's passkey is newer, cy has none")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                try transaction.retirePasswordHashes(passkeyStoredBefore: StoreSamples.now, limit: 10)
            },
            1,
            "ada's passkey is older than now"
        )
        try expectEqual(try hashes(), [3], "an account without a passkey keeps its password")
    }

    public static func passwordHashesAreKeptPerAccount(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1, name: "ada"), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2, name: "bob"), credential: StoreSamples.credential(2, owner: 2))
        let first = PasswordHashRecord(
            userID: StoreSamples.userID(1),
            hash: "$2b$10$" + String(repeating: "a", count: 53),
            createdAt: StoreSamples.now
        )
        let replacement = PasswordHashRecord(
            userID: StoreSamples.userID(1),
            hash: "pbkdf2_sha256$870000$salt$aGFzaA==",
            createdAt: StoreSamples.now.addingTimeInterval(5)
        )
        try store.transaction { transaction throws(StorageError) in try transaction.setPasswordHash(first) }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.passwordHash(userID: StoreSamples.userID(1)) },
            Optional(first),
            "kept"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.passwordHash(userID: StoreSamples.userID(2)) },
            nil,
            "another account has none"
        )
        try store.transaction { transaction throws(StorageError) in try transaction.setPasswordHash(replacement) }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.passwordHash(userID: StoreSamples.userID(1)) },
            Optional(replacement),
            "replaced"
        )
        try expect(
            try store.transaction { transaction throws(StorageError) in try transaction.deletePasswordHash(userID: StoreSamples.userID(1)) },
            "deleted"
        )
        try expect(
            !(try store.transaction { transaction throws(StorageError) in try transaction.deletePasswordHash(userID: StoreSamples.userID(1)) }),
            "once"
        )
        try store.transaction { transaction throws(StorageError) in try transaction.setPasswordHash(first) }
        try expect(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(1)) },
            "the account deleted"
        )
        try store.seedUser(StoreSamples.user(1, name: "ada"), credential: StoreSamples.credential(3, owner: 1))
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.passwordHash(userID: StoreSamples.userID(1)) },
            nil,
            "gone with its account"
        )
    }

    public static func passwordHashesAreRefusedOutOfBounds(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try expectStorageError(.notFound, "a hash of no account") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                try transaction.setPasswordHash(PasswordHashRecord(userID: StoreSamples.userID(9), hash: "$2b$10$x", createdAt: StoreSamples.now))
            }
        }
        try store.seedUser(StoreSamples.user(1, name: "ada"), credential: StoreSamples.credential(1, owner: 1))
        for hash in ["", String(repeating: "x", count: PasswordHashRecord.maximumHashBytes + 1)] {
            try expectStorageError(.invalidRecord, "a hash of \(hash.utf8.count) bytes") { () throws(StorageError) in
                try store.transaction { transaction throws(StorageError) in
                    try transaction.setPasswordHash(PasswordHashRecord(userID: StoreSamples.userID(1), hash: hash, createdAt: StoreSamples.now))
                }
            }
        }
    }
}
