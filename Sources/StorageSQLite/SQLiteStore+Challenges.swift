import CSQLite
import Foundation
import Storage

extension SQLiteStore {
    public func insertChallenge(_ challenge: ChallengeRecord) throws(StorageError) {
        try withConnectionDeferringDurability { connection throws(SQLiteError) in
            try connection.statement(SQLiteRecords.challengeInsert).run(SQLiteRecords.challengeValues(challenge))
        }
    }

    public func takeChallenge(_ challenge: [UInt8], now: Date) throws(StorageError) -> ChallengeLookup {
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
