import Foundation
import Storage
import Synchronization
import TestSupport
import Testing

@testable import StorageSQLite

/// Issue 20: the ceremonies' final writes share their commits. A refused write in a batch fails alone, the others are
/// durable; concurrent ceremonies form batches; a failed commit fails the whole batch. A batch runs without savepoints
/// first, and again with one per write only when one of its writes is refused.
@Suite("SQLite group commit")
struct SQLiteGroupCommitTests {
    /// A session of `owner` with an ID and token hash of its own (`number` up to 65,535).
    static func session(_ number: Int, owner: UInt8) -> SessionRecord {
        var session = StoreSamples.session(1, owner: owner)
        let tag = [UInt8(number >> 8), UInt8(number & 0xFF)]
        session.tokenHash = [UInt8](repeating: 0x5A, count: 30) + tag
        session.id = [UInt8](repeating: 0x1D, count: 14) + tag
        return session
    }

    /// A write that inserts the session `number` of user 1, and then throws `refusal` when one is given.
    static func insertSession(_ number: Int, thenThrow refusal: StorageError? = nil) -> SQLiteCommitGroup.Write {
        func write(_ records: SQLiteRecords) throws(StorageError) {
            try records.insertSession(session(number, owner: 1))
            if let refusal { throw refusal }
        }
        return write
    }

    /// Commits one empty write through `group` from each of `writers` threads at once, each commit taking
    /// `commitSeconds` and reporting its size to `committed`; whether every writer returned within 30 s.
    static func commitFromThreads(
        _ group: SQLiteCommitGroup,
        writers: Int,
        commitSeconds: TimeInterval,
        committed: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> Bool {
        let dispatch = DispatchGroup()
        for _ in 0..<writers {
            dispatch.enter()
            Thread.detachNewThread {
                defer { dispatch.leave() }
                try? group.commit({ _ throws(StorageError) in }) { writes in
                    Thread.sleep(forTimeInterval: commitSeconds)
                    committed(writes.count)
                    return [StorageError?](repeating: nil, count: writes.count)
                }
            }
        }
        return dispatch.wait(timeout: .now() + 30) == .success
    }

    /// A batch of three in which the middle write inserts a session and then is refused: it is rolled back to its
    /// savepoint and gets its error; the writes before and after it are committed.
    @Test func aRefusedWriteInABatchFailsAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let refusal = StorageError(.invalidRecord, "refused by the test")
        let errors = store.commitBatch([Self.insertSession(1), Self.insertSession(2, thenThrow: refusal), Self.insertSession(3)])
        #expect(errors.map { $0?.code } == [nil, .invalidRecord, nil])
        #expect(try store.session(id: Self.session(1, owner: 1).id, now: StoreSamples.now) != nil)
        #expect(try store.session(id: Self.session(2, owner: 1).id, now: StoreSamples.now) == nil, "rolled back to its savepoint")
        #expect(try store.session(id: Self.session(3, owner: 1).id, now: StoreSamples.now) != nil)
        #expect(store.batchesRunInSavepoints.load(ordering: .relaxed) == 1)
    }

    /// Run together, the same batch is rolled back whole when its middle write is refused: nothing of it is applied,
    /// not even the writes before the refused one, and the store is left as it was for the savepoint pass.
    @Test func aRefusedWriteRollsBackTheBatchRunTogether() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let refusal = StorageError(.invalidRecord, "refused by the test")
        guard case .refused = store.commitTogether([Self.insertSession(1), Self.insertSession(2, thenThrow: refusal), Self.insertSession(3)]) else {
            Issue.record("the batch was not refused")
            return
        }
        for number in 1...3 {
            #expect(try store.session(id: Self.session(number, owner: 1).id, now: StoreSamples.now) == nil, "session \(number)")
        }
        guard case .committed = store.commitTogether([Self.insertSession(1), Self.insertSession(3)]) else {
            Issue.record("a batch without refusals was not committed")
            return
        }
        #expect(try store.session(id: Self.session(3, owner: 1).id, now: StoreSamples.now) != nil)
    }

    /// A sign-in whose challenge was spent before writes nothing and is refused once its batch is committed, without
    /// running its batch again in savepoints; the next sign-in, with a challenge of its own, is stored.
    @Test func aSpentChallengeIsRefusedWithoutASavepointPass() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 0
        try store.seedUser(StoreSamples.user(1), credential: credential)
        func signIn(_ round: Int, spending challenge: ChallengeRecord) throws(StorageError) {
            let update = AuthenticationUpdate(
                credentialID: credential.id,
                signCount: UInt32(round),
                backupEligible: true,
                backupState: false,
                usedAt: StoreSamples.now,
                backupEligibilityChanged: false
            )
            _ = try store.completeAuthentication(
                update,
                session: Self.session(round, owner: 1),
                events: [],
                spending: challenge,
                expecting: SignInExpectation(credential)
            )
        }
        try signIn(1, spending: StoreSamples.challenge(1))
        do {
            try signIn(2, spending: StoreSamples.challenge(1))
            Issue.record("a spent challenge was accepted")
        } catch {
            #expect(error.code == .challengeSpent)
        }
        try signIn(3, spending: StoreSamples.challenge(2))
        #expect(try store.session(id: Self.session(2, owner: 1).id, now: StoreSamples.now) == nil)
        #expect(try store.session(id: Self.session(3, owner: 1).id, now: StoreSamples.now) != nil)
        #expect(try store.credential(id: credential.id)?.signCount == 3)
        #expect(store.batchesRunInSavepoints.load(ordering: .relaxed) == 0)
    }

    /// A write whose statement fails (a session ID that exists) fails alone too, and the batch commits the rest.
    @Test func aFailedStatementInABatchFailsAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let errors = store.commitBatch([Self.insertSession(1), Self.insertSession(1), Self.insertSession(2)])
        #expect(errors[0] == nil && errors[1] != nil && errors[2] == nil, "\(errors)")
        #expect(try store.session(id: Self.session(2, owner: 1).id, now: StoreSamples.now) != nil)
    }

    /// When the transaction cannot begin (another connection holds the write lock past the busy timeout), every write
    /// of the batch gets the error and none is applied.
    @Test func aBatchThatCannotCommitFailsEveryWrite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let other = try SQLiteStore(path: path)
        defer { other.close() }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? other.withConnection { connection throws(SQLiteError) in
                try connection.statement("BEGIN IMMEDIATE").run([])
                holding.signal()
                release.wait()
                try connection.statement("ROLLBACK").run([])
            }
        }
        holding.wait()
        let errors = store.commitBatch([Self.insertSession(1), Self.insertSession(2)])
        release.signal()
        #expect(errors.allSatisfy { $0 != nil }, "\(errors)")
        #expect(try store.session(id: Self.session(1, owner: 1).id, now: StoreSamples.now) == nil)
    }

    /// Eight threads signing in at once: every sign-in is stored, and commits held several of them.
    @Test func concurrentSignInsShareCommits() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        for owner in UInt8(1)...8 {
            var credential = StoreSamples.credential(owner, owner: owner)
            credential.signCount = 0
            try store.seedUser(StoreSamples.user(owner), credential: credential)
        }
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for owner in UInt8(1)...8 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for round in 1...25 {
                    let update = AuthenticationUpdate(
                        credentialID: StoreSamples.credential(owner, owner: owner).id,
                        signCount: UInt32(round),
                        backupEligible: true,
                        backupState: false,
                        usedAt: StoreSamples.now,
                        backupEligibilityChanged: false
                    )
                    do {
                        _ = try store.completeAuthentication(
                            update,
                            session: Self.session(Int(owner) * 100 + round, owner: owner),
                            events: [],
                            spending: nil,
                            expecting: StoreSamples.expecting(owner, owner: owner)
                        )
                    } catch {
                        failures.withLock { $0.append("\(owner)/\(round): \(error)") }
                    }
                }
            }
        }
        group.wait()
        #expect(failures.withLock { $0 } == [])
        for owner in UInt8(1)...8 {
            let stored = try store.credential(id: StoreSamples.credential(owner, owner: owner).id)
            #expect(stored?.signCount == 25)
            #expect(try store.session(id: Self.session(Int(owner) * 100 + 25, owner: owner).id, now: StoreSamples.now) != nil)
        }
        let sizes = store.commitGroup.batchSizes
        #expect(sizes.reduce(0, +) == 200)
        #expect(sizes.contains { $0 > 1 }, "no commit held more than one sign-in: \(sizes.prefix(40))")
        #expect(store.batchesRunInSavepoints.load(ordering: .relaxed) == 0, "a batch without refusals ran in savepoints")
    }

    /// More writers than one batch holds, each waiting while a slow commit runs: every write is committed once, no
    /// batch holds more than `maximumBatch`, and no writer is left waiting, whether its write was in the batch that
    /// its own thread committed (the writers are woken after the mutex is free) or in a later one (a thread whose
    /// write waits for the next batch wakes the writers of the one it committed before it goes on).
    @Test func moreWritersThanABatchHoldAreEachCommittedOnce() {
        let group = SQLiteCommitGroup()
        let writers = SQLiteCommitGroup.maximumBatch * 2 + 8
        let committed = Mutex(0)
        let returned = Self.commitFromThreads(group, writers: writers, commitSeconds: 0.02) { size in
            committed.withLock { $0 += size }
        }
        #expect(returned, "a writer was left waiting")
        #expect(committed.withLock { $0 } == writers)
        let sizes = group.batchSizes
        #expect(sizes.reduce(0, +) == writers)
        #expect(sizes.allSatisfy { $0 <= SQLiteCommitGroup.maximumBatch })
        #expect(sizes.contains { $0 > 1 })
    }

    /// Issue 44: a waiting writer is woken once, by the thread that committed its write or to lead the next commit,
    /// never by the end of a commit that did not hold its write (a broadcast to every waiting writer woke the next
    /// batch's too, each a context switch and a `futex` call).
    @Test func eachWaitingWriteIsWokenOnce() {
        let group = SQLiteCommitGroup()
        let writers = 24
        #expect(Self.commitFromThreads(group, writers: writers, commitSeconds: 0.01), "a writer was left waiting")
        let waits = group.waits
        #expect(group.batchSizes.reduce(0, +) == writers)
        #expect(waits.writes > 0, "no writer waited: the test measured nothing")
        #expect(waits.wakeUps == waits.writes, "\(waits.wakeUps) wake-ups for \(waits.writes) waiting writes")
    }
}
