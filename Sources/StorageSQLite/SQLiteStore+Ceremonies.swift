import Foundation
import Storage

/// Each ceremony's final writes are committed durably before the call returns, together with those of the ceremonies
/// that finish meanwhile (`SQLiteCommitGroup`): one transaction and one `fsync` for all of them. A refused write (a
/// passkey registered twice, a failed statement) fails alone: the batch then runs again with each write in its own
/// savepoint (`commitBatch`). A sign-in refused by its stored state (a spent challenge, a counter that went back) is
/// not a failed write: what it wrote commits, and its refusal is thrown once its batch is durable.
extension SQLiteStore {
    public func completeAuthentication(
        _ update: AuthenticationUpdate,
        session: SessionRecord,
        events: [NewEvent],
        spending: ChallengeRecord?,
        expecting: SignInExpectation
    ) throws(StorageError) -> UserRecord {
        try Self.checkBounds(session: session, events: events)
        // A spent challenge writes nothing; a refused counter, owner or credential writes the spent challenge alone.
        // Either outcome is thrown once the batch is committed. The write may run twice (`commitBatch`): it starts
        // from a clean outcome.
        let outcome = SignInOutcome()
        try groupCommit { records throws(StorageError) in
            outcome.isChallengeSpent = false
            outcome.counter = .recorded
            outcome.owner = nil
            if let spending, try !records.insertChallengeUnlessStored(spending) {
                outcome.isChallengeSpent = true
                return
            }
            outcome.counter = try records.recordSignIn(update, userID: session.userID, expecting: expecting)
            guard outcome.counter == .recorded else { return }
            try records.insertSession(session)
            try records.appendEvents(events)
            outcome.owner = try records.user(id: session.userID)
        }
        if outcome.isChallengeSpent { throw StorageError(.challengeSpent, "the challenge was used before") }
        try outcome.counter.check()
        guard let owner = outcome.owner else { throw StorageError(.notFound, "the session's user does not exist") }
        return owner
    }

    /// What a sign-in's write found, read by the caller after the batch that ran the write was committed.
    private final class SignInOutcome {
        var isChallengeSpent = false
        var counter = CounterUpdate.recorded
        var owner: UserRecord?
    }

    public func completeRegistration(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent],
        mail: [NewMail]
    ) throws(StorageError) {
        try Self.checkRegistration(newUser: newUser, credential: credential, session: session, events: events)
        try groupCommit { records throws(StorageError) in
            try records.insertRegistration(newUser: newUser, credential: credential, session: session, events: events)
            for message in mail { _ = try records.enqueueMail(message) }
        }
    }

    /// Commits `write` with the writes that arrive while the commit before it is on its way to the disk. A thread of
    /// lowered priority hands the whole call off (`SQLiteWriterHandoff`): it never leads a batch that others wait for.
    func groupCommit(_ write: @escaping SQLiteCommitGroup.Write) throws(StorageError) {
        try writerHandoff.run { () throws(StorageError) in
            try commitGroup.commit(write) { writes in commitBatch(writes) }
        }
    }

    /// One durable transaction for `writes`, and each write's error (nil for those that are durable now). First all of
    /// them together (`commitTogether`); when one of them throws or one of its statements fails, that transaction is
    /// rolled back and the batch runs again with each write in a savepoint (`commitEachInSavepoint`), so that the
    /// refused write gets its error and the others commit. A write therefore may run twice, each time from the state
    /// before the batch. The savepoints (two statements per write, and the copies of the pages a rollback to one would
    /// restore) cost about 4 % of a sign-in's server CPU with the data in memory, which a batch without refusals saves.
    func commitBatch(_ writes: [SQLiteCommitGroup.Write]) -> [StorageError?] {
        switch commitTogether(writes) {
        case .committed: return [StorageError?](repeating: nil, count: writes.count)
        case .failed(let error): return [StorageError?](repeating: error, count: writes.count)
        case .refused:
            batchesRunInSavepoints.add(1, ordering: .relaxed)
            return commitEachInSavepoint(writes)
        }
    }

    /// How `commitTogether` ended.
    enum TogetherOutcome {
        /// Every write is durable.
        case committed
        /// The transaction could not begin or commit: no write is applied, and each gets this error.
        case failed(StorageError)
        /// A write threw or one of its statements failed: the transaction was rolled back and nothing is applied.
        case refused
    }

    /// `writes` in one transaction (`SQLiteRecords.immediateTransaction`), without savepoints.
    func commitTogether(_ writes: [SQLiteCommitGroup.Write]) -> TogetherOutcome {
        var isRefused = false
        do throws(StorageError) {
            try withRecords { records throws(StorageError) in
                try records.immediateTransaction { () throws(StorageError) in
                    for write in writes {
                        let own = SQLiteRecords(connection: records.connection)
                        defer { own.isOpen = false }
                        do throws(StorageError) {
                            try write(own)
                            if let failure = own.failure { throw failure }
                        } catch {
                            isRefused = true
                            throw error
                        }
                    }
                }
            }
            return .committed
        } catch {
            return isRefused ? .refused : .failed(error)
        }
    }

    /// `writes` in one transaction (`SQLiteRecords.immediateTransaction`), each in a savepoint: a write that throws (or
    /// whose statements failed) is rolled back to its savepoint and gets its error; the others commit. When the
    /// transaction cannot begin or commit, or SQLite ended it (a full disk), every write that had not failed gets that
    /// error.
    func commitEachInSavepoint(_ writes: [SQLiteCommitGroup.Write]) -> [StorageError?] {
        var errors = [StorageError?](repeating: nil, count: writes.count)
        do throws(StorageError) {
            try withRecords { records throws(StorageError) in
                try records.immediateTransaction { () throws(StorageError) in
                    let connection = records.connection
                    for (index, write) in writes.enumerated() {
                        let own = SQLiteRecords(connection: connection)
                        defer { own.isOpen = false }
                        do throws(StorageError) {
                            try own.run { connection throws(SQLiteError) in try connection.statement("SAVEPOINT ceremony").run([]) }
                            try write(own)
                            if let failure = own.failure { throw failure }
                            try own.run { connection throws(SQLiteError) in try connection.statement("RELEASE ceremony").run([]) }
                        } catch {
                            errors[index] = error
                            guard connection.isInTransaction else { throw error }
                            _ = try? connection.statement("ROLLBACK TO ceremony").run([])
                            _ = try? connection.statement("RELEASE ceremony").run([])
                        }
                    }
                }
            }
        } catch {
            for index in errors.indices where errors[index] == nil { errors[index] = error }
        }
        return errors
    }
}
