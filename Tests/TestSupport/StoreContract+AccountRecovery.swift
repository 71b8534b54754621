import Foundation
import Storage
import Synchronization

/// The clauses of the store contract for the ways back into an account that lost every passkey: enrollment links and
/// recovery codes.
extension StoreContract {
    static let accountRecoveryChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "enrollment links: stored, read, taken once, purged, deleted with the user", run: enrollmentTokensAreSingleUse),
        StoreContractCheck(name: "enrollment links: 16 threads taking one: one winner", run: concurrentEnrollmentTokenHasOneWinner),
        StoreContractCheck(name: "recovery codes: a new set replaces the old, each used once", run: recoveryCodesAreReplacedAndUsedOnce),
        StoreContractCheck(name: "recovery codes: 16 threads using one: one winner", run: concurrentRecoveryCodeHasOneWinner),
    ]

    public static func enrollmentTokensAreSingleUse(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let now = StoreSamples.now
        let live = EnrollmentTokenRecord(
            tokenHash: [UInt8](repeating: 0xE1, count: 32),
            userID: StoreSamples.userID(1),
            createdAt: now,
            expiresAt: now.addingTimeInterval(86_400.5)
        )
        let expired = EnrollmentTokenRecord(
            tokenHash: [UInt8](repeating: 0xE2, count: 32),
            userID: StoreSamples.userID(1),
            createdAt: now.addingTimeInterval(-10),
            expiresAt: now
        )
        let other = EnrollmentTokenRecord(
            tokenHash: [UInt8](repeating: 0xE3, count: 32),
            userID: StoreSamples.userID(2),
            createdAt: now,
            expiresAt: now.addingTimeInterval(60)
        )
        try store.transaction { transaction throws(StorageError) in
            for token in [live, expired, other] { try transaction.insertEnrollmentToken(token) }
        }
        try expectStorageError(.duplicateKey, "the same token hash") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.insertEnrollmentToken(live) }
        }
        var orphan = live
        orphan.tokenHash = [UInt8](repeating: 0xE4, count: 32)
        orphan.userID = StoreSamples.userID(9)
        try expectStorageError(.notFound, "a link for no user") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.insertEnrollmentToken(orphan) }
        }
        let read = try store.transaction { transaction throws(StorageError) in
            [
                try transaction.enrollmentToken(hash: live.tokenHash), try transaction.enrollmentToken(hash: expired.tokenHash),
                try transaction.enrollmentToken(hash: [1]),
            ]
        }
        try expectEqual(read, [live, expired, nil], "read, expired ones too")
        let taken = try store.transaction { transaction throws(StorageError) in
            [try transaction.deleteEnrollmentToken(hash: live.tokenHash), try transaction.deleteEnrollmentToken(hash: live.tokenHash)]
        }
        try expectEqual(taken, [live, nil], "taken once")
        try expectStorageError(.unavailable, "the body's error") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                _ = try transaction.deleteEnrollmentToken(hash: other.tokenHash)
                throw StorageError(.unavailable, "the ceremony failed")
            }
        }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.enrollmentToken(hash: other.tokenHash) },
            Optional(other),
            "a rolled-back take leaves the link"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.purgeExpiredEnrollmentTokens(now: now) },
            1,
            "the purge removes the expired link"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.enrollmentToken(hash: expired.tokenHash) },
            nil,
            "purged"
        )
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(2)) }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.enrollmentToken(hash: other.tokenHash) },
            nil,
            "deleted with its user"
        )
    }

    public static func concurrentEnrollmentTokenHasOneWinner(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let token = EnrollmentTokenRecord(
            tokenHash: [UInt8](repeating: 0xE5, count: 32),
            userID: StoreSamples.userID(1),
            createdAt: StoreSamples.now,
            expiresAt: StoreSamples.now.addingTimeInterval(60)
        )
        try store.transaction { transaction throws(StorageError) in try transaction.insertEnrollmentToken(token) }
        let winners = Mutex(0)
        let failures = concurrently(threads: 16, rounds: 1) { _, _ throws(StorageError) in
            let got = try store.transaction { transaction throws(StorageError) in try transaction.deleteEnrollmentToken(hash: token.tokenHash) != nil
            }
            if got { winners.withLock { $0 += 1 } }
        }
        try expectEqual(failures, [], "errors")
        try expectEqual(winners.withLock { $0 }, 1, "winners")
    }

    public static func recoveryCodesAreReplacedAndUsedOnce(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let first = (0..<10).map { [UInt8](repeating: UInt8($0), count: 32) }
        let second = (10..<20).map { [UInt8](repeating: UInt8($0), count: 32) }
        let (one, two) = (StoreSamples.userID(1), StoreSamples.userID(2))
        try store.transaction { transaction throws(StorageError) in
            try transaction.replaceRecoveryCodes(userID: one, hashes: first, createdAt: StoreSamples.now)
            try transaction.replaceRecoveryCodes(userID: two, hashes: first, createdAt: StoreSamples.now)
        }
        try expectEqual(try store.transaction { transaction throws(StorageError) in try transaction.recoveryCodeCount(userID: one) }, 10, "ten codes")
        let uses = try store.transaction { transaction throws(StorageError) in
            [
                try transaction.deleteRecoveryCode(userID: one, hash: first[3]), try transaction.deleteRecoveryCode(userID: one, hash: first[3]),
                try transaction.deleteRecoveryCode(userID: one, hash: second[0]),
                try transaction.deleteRecoveryCode(userID: StoreSamples.userID(9), hash: first[4]),
            ]
        }
        try expectEqual(uses, [true, false, false, false], "used once, unknown code, unknown user")
        try expectEqual(try store.transaction { transaction throws(StorageError) in try transaction.recoveryCodeCount(userID: one) }, 9, "nine left")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.recoveryCodeCount(userID: two) },
            10,
            "the other user's untouched"
        )
        try store.transaction { transaction throws(StorageError) in
            try transaction.replaceRecoveryCodes(userID: one, hashes: second, createdAt: StoreSamples.now.addingTimeInterval(1))
        }
        let afterReplace = try store.transaction { transaction throws(StorageError) in
            [try transaction.deleteRecoveryCode(userID: one, hash: first[5]), try transaction.deleteRecoveryCode(userID: one, hash: second[5])]
        }
        try expectEqual(afterReplace, [false, true], "the old set is gone, the new one works")
        try expectStorageError(.notFound, "codes for no user") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                try transaction.replaceRecoveryCodes(userID: StoreSamples.userID(9), hashes: [], createdAt: StoreSamples.now)
            }
        }
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: two) }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.recoveryCodeCount(userID: two) },
            0,
            "deleted with the user"
        )
    }

    public static func concurrentRecoveryCodeHasOneWinner(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let hash = [UInt8](repeating: 0x77, count: 32)
        try store.transaction { transaction throws(StorageError) in
            try transaction.replaceRecoveryCodes(userID: StoreSamples.userID(1), hashes: [hash], createdAt: StoreSamples.now)
        }
        let winners = Mutex(0)
        let failures = concurrently(threads: 16, rounds: 1) { _, _ throws(StorageError) in
            let got = try store.transaction { transaction throws(StorageError) in
                try transaction.deleteRecoveryCode(userID: StoreSamples.userID(1), hash: hash)
            }
            if got { winners.withLock { $0 += 1 } }
        }
        try expectEqual(failures, [], "errors")
        try expectEqual(winners.withLock { $0 }, 1, "winners")
    }
}
