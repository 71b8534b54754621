import Dispatch
import Foundation
import Storage
import Synchronization

/// The clauses of the store contract for `TransactionalStore.transaction`: atomicity, reads of the transaction's own
/// writes, serial isolation under concurrency.
extension StoreContract {
    static let transactionChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "transaction: a throwing body leaves nothing", run: throwingBodyLeavesNothing),
        StoreContractCheck(name: "transaction: an operation's error dooms it, even when caught", run: failedOperationDoomsTransaction),
        StoreContractCheck(name: "transaction: reads see its own writes, and all commit", run: transactionReadsItsOwnWrites),
        StoreContractCheck(name: "transaction: the transaction is unusable after its body", run: transactionEndsWithItsBody),
        StoreContractCheck(name: "transaction: 8 threads × 50 read-increment-writes of one row give 400", run: concurrentIncrementsAreSerial),
    ]

    /// A body that writes one record of every kind.
    static func writeOneOfEverything(_ transaction: any StoreTransaction) throws(StorageError) {
        try transaction.insertUser(StoreSamples.user(1))
        try transaction.insertCredential(StoreSamples.credential(1, owner: 1))
        try transaction.insertSession(StoreSamples.session(1, owner: 1))
        try transaction.insertAppleIdentity(StoreSamples.appleIdentity("001.a", owner: 1))
        guard try transaction.rememberNonce([0x4E], until: StoreSamples.now.addingTimeInterval(60), now: StoreSamples.now) else {
            throw StorageError(.unavailable, "a fresh nonce was refused")
        }
        _ = try transaction.enqueueRevocation(token: [1], clientID: "com.example.app", notBefore: StoreSamples.now)
        try transaction.appendEvent(StoreSamples.event(1, owner: 1))
    }

    /// Fails the check unless the store holds nothing `writeOneOfEverything` writes.
    static func expectNothingWritten(_ store: any PasskeyStore, _ what: String) throws {
        let now = StoreSamples.now
        try expectEqual(try store.user(id: StoreSamples.userID(1)), nil, "\(what): user")
        try expectEqual(try store.credential(id: StoreSamples.credential(1, owner: 1).id), nil, "\(what): credential")
        try expectEqual(try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: now), nil, "\(what): session")
        try expectEqual(try store.appleIdentity(subject: "001.a"), nil, "\(what): Apple identity")
        try expectEqual(try store.dueRevocations(now: now, limit: 10), [], "\(what): revocations")
        try expectEqual(try store.allEvents(), [], "\(what): events")
        // Remembered, then rolled back, so that the store stays as it was.
        var unused = false
        try expectStorageError(.notFound, "\(what): the nonce check's rollback") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                unused = try transaction.rememberNonce([0x4E], until: now.addingTimeInterval(60), now: now)
                throw StorageError(.notFound, "rolled back")
            }
        }
        try expect(unused, "\(what): the nonce is still unused")
    }

    public static func throwingBodyLeavesNothing(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let thrown = StorageError(.notFound, "the body changed its mind")
        try expectStorageError(.notFound, "the body's error") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                try writeOneOfEverything(transaction)
                throw thrown
            }
        }
        try expectNothingWritten(store, "after the rollback")
    }

    public static func failedOperationDoomsTransaction(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try expectStorageError(.usernameTaken, "the caught error") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                try writeOneOfEverything(transaction)
                do {
                    try transaction.insertUser(StoreSamples.user(2, name: StoreSamples.user(1).name))
                } catch {
                    // Caught and ignored: the transaction is doomed all the same.
                }
            }
        }
        try expectNothingWritten(store, "after a caught failure")
        try expectStorageError(.invalidRecord, "a refused event, caught") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                try writeOneOfEverything(transaction)
                _ = try? transaction.appendEvent(
                    NewEvent(id: StoreSamples.eventID(200), type: "Not A Type", userID: nil, occurredAt: StoreSamples.now, data: [])
                )
            }
        }
        try expectNothingWritten(store, "after a caught refusal")
    }

    public static func transactionReadsItsOwnWrites(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let now = StoreSamples.now
        let second = StoreSamples.credential(3, owner: 1, createdAt: now)
        let eventIDs = try store.transaction { transaction throws(StorageError) -> [Int64] in
            try writeOneOfEverything(transaction)
            try expectInBody(try transaction.user(id: StoreSamples.userID(1)) == StoreSamples.user(1), "the new user")
            try expectInBody(try transaction.user(name: StoreSamples.user(1).name) == StoreSamples.user(1), "the new user by name")
            try transaction.insertCredential(second)
            try expectInBody(
                try transaction.credentials(userID: StoreSamples.userID(1)) == [StoreSamples.credential(1, owner: 1), second],
                "the new credentials"
            )
            try expectInBody(try transaction.deleteCredential(id: second.id, userID: StoreSamples.userID(1)), "deleting the new credential")
            try expectInBody(try transaction.credential(id: second.id) == nil, "the deleted credential")
            try expectInBody(try transaction.sessions(userID: StoreSamples.userID(1), now: now) == [StoreSamples.session(1, owner: 1)], "sessions")
            try expectInBody(try transaction.appleIdentity(subject: "001.a") == StoreSamples.appleIdentity("001.a", owner: 1), "the identity")
            try expectInBody(!(try transaction.rememberNonce([0x4E], until: now.addingTimeInterval(60), now: now)), "the remembered nonce")
            try expectInBody(
                try transaction.renameCredential(id: StoreSamples.credential(1, owner: 1).id, userID: StoreSamples.userID(1), name: "x"),
                "rename"
            )
            try expectInBody(try transaction.credential(id: StoreSamples.credential(1, owner: 1).id)?.name == "x", "the new name")
            try expectInBody(try transaction.user(id: StoreSamples.userID(2)) == StoreSamples.user(2), "what was there before")
            return [try transaction.appendEvent(StoreSamples.event(2, owner: 2)), try transaction.appendEvent(StoreSamples.event(3, owner: nil))]
        }
        var renamed = StoreSamples.credential(1, owner: 1)
        renamed.name = "x"
        try expectEqual(try store.user(id: StoreSamples.userID(1)), StoreSamples.user(1), "committed user")
        try expectEqual(try store.credentials(userID: StoreSamples.userID(1)), [renamed], "committed credentials")
        try expectEqual(
            try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: now),
            StoreSamples.session(1, owner: 1),
            "session"
        )
        try expectEqual(try store.appleIdentity(subject: "001.a"), StoreSamples.appleIdentity("001.a", owner: 1), "committed identity")
        try expectEqual(try store.dueRevocations(now: now, limit: 10).map(\.encryptedToken), [[1]], "committed revocation")
        let events = try store.allEvents()
        try expectEqual(events.map(\.type), ["passkey.renamed", "passkey.renamed", "passkey.renamed"], "committed events")
        try expectEqual(Array(events.map(\.id).suffix(2)), eventIDs, "the ids appendEvent returned")
    }

    public static func transactionEndsWithItsBody(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var stale: (any StoreTransaction)?
        try store.transaction { transaction throws(StorageError) in stale = transaction }
        try expectStorageError(.unavailable, "a read after the body") { () throws(StorageError) in
            _ = try stale?.user(id: StoreSamples.userID(1))
        }
        try expectStorageError(.unavailable, "a write after the body") { () throws(StorageError) in
            try stale?.insertUser(StoreSamples.user(1))
        }
        try expectEqual(try store.user(id: StoreSamples.userID(1)), nil, "nothing written")
    }

    public static func concurrentIncrementsAreSerial(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var counter = StoreSamples.credential(1, owner: 1)
        counter.signCount = 0
        try store.seedUser(StoreSamples.user(1), credential: counter)
        let failures = try incrementConcurrently(threads: 8, rounds: 50, credentialID: counter.id) { _ in store }
        try expectEqual(failures, [], "failed transactions")
        try expectEqual(try store.credential(id: counter.id)?.signCount, 400, "the counter")
    }

    /// Runs `threads` threads at once, each making `rounds` transactions that read the credential's counter and write
    /// it back plus one (thread `index` on `store(index)`), and returns the errors.
    public static func incrementConcurrently(
        threads: Int,
        rounds: Int,
        credentialID: [UInt8],
        store: @escaping @Sendable (Int) -> any PasskeyStore
    ) throws -> [StorageError] {
        concurrently(threads: threads, rounds: rounds) { index, _ throws(StorageError) in
            try store(index).transaction { transaction throws(StorageError) in
                guard let read = try transaction.credential(id: credentialID) else {
                    throw StorageError(.notFound, "the counter is gone")
                }
                try transaction.recordAuthentication(
                    AuthenticationUpdate(
                        credentialID: credentialID,
                        signCount: read.signCount + 1,
                        backupEligible: read.backupEligible,
                        backupState: read.backupState,
                        usedAt: StoreSamples.now,
                        backupEligibilityChanged: false
                    )
                )
            }
        }
    }

    /// Starts `threads` threads at once, each calling `body(index, round)` for `rounds` rounds, and returns the
    /// errors once all have finished.
    public static func concurrently(
        threads: Int,
        rounds: Int,
        _ body: @escaping @Sendable (_ index: Int, _ round: Int) throws(StorageError) -> Void
    ) -> [StorageError] {
        let failures = Mutex<[StorageError]>([])
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for index in 0..<threads {
            finished.enter()
            Thread {
                start.wait()
                for round in 0..<rounds {
                    do throws(StorageError) {
                        try body(index, round)
                    } catch {
                        failures.withLock { $0.append(error) }
                    }
                }
                finished.leave()
            }.start()
        }
        for _ in 0..<threads { start.signal() }
        finished.wait()
        return failures.withLock { $0 }
    }

    /// A failed expectation inside a transaction body, which may only throw `StorageError`: reported as one, with
    /// the expectation in its reason (and the transaction rolled back).
    static func expectInBody(_ condition: Bool, _ what: String) throws(StorageError) {
        guard condition else { throw StorageError(.unavailable, "contract check failed inside the transaction: \(what)") }
    }
}
