import Foundation
import Storage

/// Each ceremony's final writes are committed durably before the call returns, together with those of the ceremonies
/// that finish meanwhile (`SQLiteCommitGroup`): one transaction and one `fsync` for all of them, each in its own
/// savepoint, so that one refused write (a counter that went back, a passkey registered twice) fails alone.
extension SQLiteStore {
    public func completeAuthentication(
        _ update: AuthenticationUpdate,
        session: SessionRecord,
        events: [NewEvent],
        spending: ChallengeRecord?
    ) throws(StorageError) {
        try Self.checkBounds(session: session, events: events)
        // A refused counter or a missing credential releases its savepoint with the spent challenge alone in it: the
        // outcome is thrown once the batch is committed.
        let outcome = SignInOutcome()
        try groupCommit { records throws(StorageError) in
            if let spending, try !records.insertChallengeUnlessStored(spending) {
                throw StorageError(.challengeSpent, "the challenge was used before")
            }
            outcome.counter = try records.recordSignIn(update, userID: session.userID)
            guard outcome.counter == .recorded else { return }
            try records.insertSession(session)
            try records.appendEvents(events)
        }
        try outcome.counter.check()
    }

    /// What a sign-in's write found, read by the caller after the batch that ran the write was committed.
    private final class SignInOutcome {
        var counter = CounterUpdate.recorded
    }

    public func completeRegistration(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent]
    ) throws(StorageError) {
        try Self.checkRegistration(newUser: newUser, credential: credential, session: session, events: events)
        try groupCommit { records throws(StorageError) in
            try records.insertRegistration(newUser: newUser, credential: credential, session: session, events: events)
        }
    }

    /// Commits `write` with the writes that arrive while the commit before it is on its way to the disk.
    func groupCommit(_ write: @escaping SQLiteCommitGroup.Write) throws(StorageError) {
        try commitGroup.commit(write) { writes in commitBatch(writes) }
    }

    /// One durable transaction for `writes`, each in a savepoint: a write that throws (or whose statements failed) is
    /// rolled back to its savepoint and gets its error; the others commit. When the transaction cannot begin or
    /// commit, or SQLite ended it (a full disk), every write that had not failed gets that error.
    func commitBatch(_ writes: [SQLiteCommitGroup.Write]) -> [StorageError?] {
        var errors = [StorageError?](repeating: nil, count: writes.count)
        do throws(StorageError) {
            try withRecords { records throws(StorageError) in
                try records.run { connection throws(SQLiteError) in try connection.statement("BEGIN IMMEDIATE").run([]) }
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
                do throws(StorageError) {
                    try records.run { connection throws(SQLiteError) in try connection.statement("COMMIT").run([]) }
                } catch {
                    if connection.isInTransaction { _ = try? connection.statement("ROLLBACK").run([]) }
                    throw error
                }
            }
        } catch {
            for index in errors.indices where errors[index] == nil { errors[index] = error }
        }
        return errors
    }
}
