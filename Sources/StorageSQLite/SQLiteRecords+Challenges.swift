import CSQLite
import Foundation
import Storage

extension SQLiteRecords {
    /// Stores one challenge (`challengeValues`).
    static let challengeInsert = """
        INSERT INTO challenges (challenge, ceremony, user_id, user_verification, context, expires_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6)
        """

    /// The parameters of `challengeInsert`.
    static func challengeValues(_ challenge: ChallengeRecord) -> [SQLiteValue] {
        [
            .blob(challenge.challenge), .text(challenge.ceremony.rawValue), challenge.userID.map { .blob($0) } ?? .null,
            .text(challenge.userVerification), .blob(challenge.context), .date(challenge.expiresAt),
        ]
    }

    /// A row when the challenge is stored (`SQLiteStore.takeChallenge` asks a read connection first).
    static let challengeExists = SQLiteQuery("SELECT 1 FROM challenges WHERE challenge = ?1")

    /// `challengeInsert` that does nothing when the challenge is stored already.
    static let challengeInsertUnlessStored = SQLiteQuery(challengeInsert + " ON CONFLICT (challenge) DO NOTHING")

    /// Stores `challenge` unless a challenge with its bytes is stored: false then, and nothing changes. How a sign-in's
    /// final write spends its sealed challenge (`CeremonyStore.completeAuthentication`).
    func insertChallengeUnlessStored(_ challenge: ChallengeRecord) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement(Self.challengeInsertUnlessStored).run(Self.challengeValues(challenge)) == 1
        }
    }
}
