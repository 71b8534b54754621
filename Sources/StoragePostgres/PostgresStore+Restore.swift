import Foundation
import Storage

/// Ending the grants is one transaction that appends an event for each live session, so its time grows with them, as
/// an import's does: it is over by the store's `callTimeout` plus `importRowAllowance` for each live session (counted
/// first), and each statement by the pool's reply deadline and the transaction's `statement_timeout` all the same.
extension PostgresStore: RestorableStore {
    public func endGrantsAfterRestore(now: Date, event: (SessionRecord) -> NewEvent) throws(StorageError) -> RestoreRevocations {
        try endGrantsAfterRestore(now: now, event: event, base: pool.callTimeout, perSession: Self.importRowAllowance)
    }

    /// `endGrantsAfterRestore` over by `base` plus `perSession` for each live session.
    func endGrantsAfterRestore(
        now: Date,
        event: (SessionRecord) -> NewEvent,
        base: Duration,
        perSession: Duration
    ) throws(StorageError) -> RestoreRevocations {
        let sessions = try withConnection { connection throws(PostgresError) in
            try connection.run("SELECT count(*) FROM sessions WHERE expires_at > $1", [.date(now)]) { row throws(PostgresError) in
                try row.integer(0)
            }.first ?? 0
        }
        let deadline = ContinuousClock.now + base + perSession * Int(sessions)
        return try transaction(deadline: deadline) { transaction throws(StorageError) -> RestoreRevocations in
            guard let records = transaction as? PostgresRecords else { throw StorageError(.unavailable, "not a PostgreSQL transaction") }
            let live = try records.run { connection throws(PostgresError) in
                try connection.run(
                    "SELECT \(PostgresRecords.sessionColumns) FROM sessions WHERE expires_at > $1 ORDER BY user_id, id",
                    [.date(now)],
                    row: PostgresRecords.sessionRecord
                )
            }
            for session in live { try records.appendEvent(event(session)) }
            return try records.run { connection throws(PostgresError) in
                _ = try connection.run("DELETE FROM sessions", [])
                var revocations = RestoreRevocations(sessions: live.count)
                revocations.oauthGrants = try connection.run("DELETE FROM oauth_grants", [])
                revocations.enrollmentLinks =
                    try connection.run("DELETE FROM enrollment_tokens", []) + connection.run("DELETE FROM email_tokens", [])
                revocations.challenges =
                    try connection.run("DELETE FROM challenges WHERE ceremony <> 'spentAuthentication'", [])
                    + connection.run("DELETE FROM oauth_codes WHERE used_at IS NULL", [])
                return revocations
            }
        }
    }
}
