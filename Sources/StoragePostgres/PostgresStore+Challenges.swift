import Foundation
import Storage

extension PostgresStore {
    public func insertChallenge(_ challenge: ChallengeRecord) throws(StorageError) {
        try withConnectionDeferringDurability { connection throws(PostgresError) in
            try connection.run(
                """
                INSERT INTO challenges (challenge, ceremony, user_id, user_verification, context, expires_at)
                VALUES ($1, $2, $3, $4, $5, $6)
                """,
                [
                    .bytea(challenge.challenge), .text(challenge.ceremony.rawValue), .optional(challenge.userID, PostgresValue.bytea),
                    .text(challenge.userVerification), .bytea(challenge.context), .date(challenge.expiresAt),
                ]
            )
        }
    }

    public func takeChallenge(_ challenge: [UInt8], now: Date) throws(StorageError) -> ChallengeLookup {
        // One statement: of concurrent DELETEs of the same row, on any nodes, only one returns it.
        let taken = try withConnectionDeferringDurability { connection throws(PostgresError) in
            try connection.run(
                """
                DELETE FROM challenges WHERE challenge = $1
                RETURNING challenge, ceremony, user_id, user_verification, context, expires_at
                """,
                [.bytea(challenge)],
                row: PostgresStore.challengeRecord
            ).first
        }
        guard let taken else { return .unknown }
        return now < taken.expiresAt ? .valid(taken) : .expired
    }

    public func purgeExpiredChallenges(now: Date) throws(StorageError) -> Int {
        try withConnection { connection throws(PostgresError) in
            try connection.run("DELETE FROM challenges WHERE expires_at <= $1", [.date(now)])
        }
    }

    private static func challengeRecord(_ row: PostgresRow) throws(PostgresError) -> ChallengeRecord {
        guard let ceremony = CeremonyKind(rawValue: row.text(1)) else {
            throw PostgresError(.decodingFailed, "a challenge has an unknown ceremony")
        }
        return ChallengeRecord(
            challenge: row.bytes(0),
            ceremony: ceremony,
            userID: row.isNull(2) ? nil : row.bytes(2),
            userVerification: row.text(3),
            context: row.bytes(4),
            expiresAt: try row.date(5)
        )
    }
}
