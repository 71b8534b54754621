import Foundation
import Storage
import Synchronization

/// The clauses of the store contract for tokens sent by email: pending address verifications and recovery links.
extension StoreContract {
    static let emailTokenChecks: [StoreContractCheck] = [
        StoreContractCheck(
            name: "email tokens: one per purpose and account, replaced, spent once, purged, deleted with the user",
            run: emailTokensAreSingleUse
        ),
        StoreContractCheck(name: "email tokens: 16 threads spending one: one winner", run: concurrentEmailTokenHasOneWinner),
        StoreContractCheck(name: "email tokens: 16 threads trying codes: every try counted", run: concurrentCodeAttemptsAreAllCounted),
    ]

    static func emailToken(_ fill: UInt8, _ purpose: EmailTokenRecord.Purpose, owner: UInt8, expiresIn seconds: TimeInterval = 60) -> EmailTokenRecord
    {
        EmailTokenRecord(
            tokenHash: [UInt8](repeating: fill, count: 32),
            purpose: purpose,
            userID: StoreSamples.userID(owner),
            address: "person\(owner)@example.org",
            codeHash: purpose == .verifyAddress ? [UInt8](repeating: fill ^ 0xFF, count: 32) : nil,
            createdAt: StoreSamples.now,
            expiresAt: StoreSamples.now.addingTimeInterval(seconds)
        )
    }

    public static func emailTokensAreSingleUse(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let (one, two) = (StoreSamples.userID(1), StoreSamples.userID(2))
        let first = emailToken(0xA1, .verifyAddress, owner: 1)
        let second = emailToken(0xA2, .verifyAddress, owner: 1, expiresIn: 0)
        let recovery = emailToken(0xA3, .recovery, owner: 1)
        let others = emailToken(0xA4, .verifyAddress, owner: 2)
        try store.transaction { transaction throws(StorageError) in
            for token in [first, recovery, others] { try transaction.replaceEmailToken(token) }
        }
        let read = try store.transaction { transaction throws(StorageError) in
            [
                try transaction.emailToken(userID: one, purpose: .verifyAddress), try transaction.emailToken(userID: one, purpose: .recovery),
                try transaction.emailToken(userID: two, purpose: .verifyAddress), try transaction.emailToken(userID: two, purpose: .recovery),
            ]
        }
        try expectEqual(read, [first, recovery, others, nil], "read by account and purpose")
        try store.transaction { transaction throws(StorageError) in try transaction.replaceEmailToken(second) }
        let replaced = try store.transaction { transaction throws(StorageError) in
            [try transaction.deleteEmailToken(hash: first.tokenHash), try transaction.emailToken(userID: one, purpose: .verifyAddress)]
        }
        try expectEqual(replaced, [nil, second], "a new verification replaces the old one: its link no longer works")
        var taken = others
        taken.userID = one
        taken.purpose = .recovery
        try expectStorageError(.duplicateKey, "another token's hash") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.replaceEmailToken(taken) }
        }
        try expectStorageError(.notFound, "a token for no user") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.replaceEmailToken(emailToken(0xA5, .recovery, owner: 9)) }
        }
        let counted = try store.transaction { transaction throws(StorageError) in
            [
                try transaction.countEmailCodeAttempt(userID: two, purpose: .verifyAddress)?.attempts,
                try transaction.countEmailCodeAttempt(userID: two, purpose: .verifyAddress)?.attempts,
                try transaction.countEmailCodeAttempt(userID: two, purpose: .recovery)?.attempts,
            ]
        }
        try expectEqual(counted, [1, 2, nil], "attempts counted, none without a token")
        try expectStorageError(.unavailable, "the body's error") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                _ = try transaction.deleteEmailToken(hash: recovery.tokenHash)
                throw StorageError(.unavailable, "the change failed")
            }
        }
        let spent = try store.transaction { transaction throws(StorageError) in
            [try transaction.deleteEmailToken(hash: recovery.tokenHash), try transaction.deleteEmailToken(hash: recovery.tokenHash)]
        }
        try expectEqual(spent, [recovery, nil], "a rolled-back spend leaves the token; then it is spent once")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.purgeExpiredEmailTokens(now: StoreSamples.now) },
            1,
            "the purge removes the expired token"
        )
        try store.transaction { transaction throws(StorageError) in try transaction.replaceEmailToken(emailToken(0xA6, .recovery, owner: 2)) }
        try expectEqual(try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: two) }, true, "deleted")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                [try transaction.emailToken(userID: two, purpose: .verifyAddress), try transaction.emailToken(userID: two, purpose: .recovery)]
            },
            [nil, nil],
            "deleted with the user"
        )
    }

    public static func concurrentEmailTokenHasOneWinner(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let token = emailToken(0xB1, .recovery, owner: 1)
        try store.transaction { transaction throws(StorageError) in try transaction.replaceEmailToken(token) }
        let winners = Mutex(0)
        let failures = concurrently(threads: 16, rounds: 1) { _, _ throws(StorageError) in
            let got = try store.transaction { transaction throws(StorageError) in try transaction.deleteEmailToken(hash: token.tokenHash) != nil }
            if got { winners.withLock { $0 += 1 } }
        }
        try expectEqual(failures, [], "errors")
        try expectEqual(winners.withLock { $0 }, 1, "winners")
    }

    public static func concurrentCodeAttemptsAreAllCounted(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.transaction { transaction throws(StorageError) in try transaction.replaceEmailToken(emailToken(0xB2, .verifyAddress, owner: 1)) }
        let seen = Mutex<[Int]>([])
        let failures = concurrently(threads: 16, rounds: 1) { _, _ throws(StorageError) in
            let after = try store.transaction { transaction throws(StorageError) in
                try transaction.countEmailCodeAttempt(userID: StoreSamples.userID(1), purpose: .verifyAddress)?.attempts
            }
            seen.withLock { $0.append(after ?? 0) }
        }
        try expectEqual(failures, [], "errors")
        try expectEqual(seen.withLock { $0.sorted() }, Array(1...16), "each try saw the count of the ones before it")
    }
}
