import CSQLite
import Foundation
import Storage

extension SQLiteStore {
    public func insertChallenge(_ challenge: ChallengeRecord) throws(StorageError) {
        try withConnectionDeferringDurability { connection throws(SQLiteError) in
            try connection.statement(SQLiteRecords.challengeInsert).run(SQLiteRecords.challengeValues(challenge))
        }
    }

    /// A challenge no read connection finds is unknown without the writer: a flood naming challenges never issued (or
    /// taken already) takes the writer's lock for none of them, and a genuine ceremony's commit waits behind none. A
    /// challenge is committed before its options are answered, so every read that begins after a client could name
    /// it finds it; one that is found is taken on the writer as before, where only one of several takers gets it.
    public func takeChallenge(_ challenge: [UInt8], now: Date) throws(StorageError) -> ChallengeLookup {
        if readers != nil {
            let exists = try reading { records throws(StorageError) in
                try records.run { connection throws(SQLiteError) in
                    try !connection.statement(SQLiteRecords.challengeExists).run([.blob(challenge)]) { _ throws(SQLiteError) in true }.isEmpty
                }
            }
            guard exists else { return .unknown }
        }
        let taken = try withConnectionDeferringDurability { connection throws(SQLiteError) in
            try connection.statement(
                """
                DELETE FROM challenges WHERE challenge = ?1
                RETURNING challenge, ceremony, user_id, user_verification, context, expires_at
                """
            ).run([.blob(challenge)], row: SQLiteStore.challengeRecord).first
        }
        guard let taken else { return .unknown }
        return now < taken.expiresAt ? .valid(taken) : .expired
    }

    public func purgeExpiredChallenges(now: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM challenges WHERE expires_at <= ?1").run([.date(now)])
        }
    }

    private static func challengeRecord(_ row: SQLiteRow) throws(SQLiteError) -> ChallengeRecord {
        guard let ceremony = CeremonyKind(rawValue: row.text(1)) else {
            throw SQLiteError(.corrupt, "a challenge has an unknown ceremony")
        }
        return ChallengeRecord(
            challenge: row.blob(0),
            ceremony: ceremony,
            userID: row.isNull(2) ? nil : row.blob(2),
            userVerification: row.text(3),
            context: row.blob(4),
            expiresAt: row.date(5)
        )
    }
}
