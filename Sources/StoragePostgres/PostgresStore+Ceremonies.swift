import Foundation
import Storage

/// Each ceremony's final writes are one statement (data-modifying CTEs): atomic without BEGIN and COMMIT, and one
/// round trip to the database instead of four or five.
extension PostgresStore {
    public func completeAuthentication(
        credentialID: [UInt8],
        signCount: UInt32,
        backupEligible: Bool,
        backupState: Bool,
        usedAt: Date,
        backupEligibilityChanged: Bool,
        session: SessionRecord
    ) throws(StorageError) {
        // §7.2 step 23 against the counter stored now: the row is updated only when the counter increased (the row
        // lock orders concurrent sign-ins on any nodes), and the session is inserted only when the row was updated;
        // a duplicate token fails both.
        let outcome = try withConnection { connection throws(PostgresError) -> CounterUpdate in
            let inserted = try connection.run(
                """
                WITH recorded AS (
                    UPDATE credentials SET sign_count = $3, backup_eligible = $4, backup_state = $5, last_used_at = $6,
                        backup_eligibility_changed = (backup_eligibility_changed OR $7)
                    WHERE id = $1 AND user_id = $2 AND (sign_count < $3 OR ($3 = 0 AND sign_count = 0))
                    RETURNING user_id
                )
                INSERT INTO sessions (token_hash, user_id, created_at, expires_at) SELECT $8, user_id, $9, $10 FROM recorded
                """,
                [
                    .bytea(credentialID), .bytea(session.userID), .bigint(Int64(signCount)), .boolean(backupEligible),
                    .boolean(backupState), .date(usedAt), .boolean(backupEligibilityChanged),
                    .bytea(session.tokenHash), .date(session.createdAt), .date(session.expiresAt),
                ]
            )
            guard inserted == 0 else { return .recorded }
            let found = try connection.run(
                "SELECT 1 FROM credentials WHERE id = $1 AND user_id = $2",
                [.bytea(credentialID), .bytea(session.userID)]
            )
            return found == 0 ? .credentialMissing : .counterNotIncreased
        }
        try outcome.check()
    }

    public func completeRegistration(newUser: UserRecord?, credential: CredentialRecord, session: SessionRecord) throws(StorageError) {
        try Self.checkRegistrationOwnership(newUser: newUser, credential: credential, session: session)
        let transports = try credential.transportsJSON()
        let values =
            PostgresStore.credentialValues(credential, transports: transports)
            + [.bytea(session.tokenHash), .date(session.createdAt), .date(session.expiresAt)]
        let writes = """
            added AS (
                INSERT INTO credentials (\(PostgresStore.credentialColumns))
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
            )
            INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES ($17, $2, $18, $19)
            """
        try withConnection { connection throws(PostgresError) in
            if let newUser {
                try connection.run(
                    """
                    WITH created AS (
                        INSERT INTO users (id, name, display_name, created_at) VALUES ($2, $20, $21, $22)
                    ), \(writes)
                    """,
                    values + [.text(newUser.name), .text(newUser.displayName), .date(newUser.createdAt)]
                )
            } else {
                try connection.run("WITH \(writes)", values)
            }
        }
    }
}
