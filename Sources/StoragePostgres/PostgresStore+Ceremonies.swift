import Foundation
import Storage

/// Each ceremony's final writes are one statement (data-modifying CTEs), events included: atomic without BEGIN and
/// COMMIT, and one round trip to the database.
extension PostgresStore {
    public func completeAuthentication(
        _ update: AuthenticationUpdate,
        session: SessionRecord,
        events: [NewEvent],
        spending: ChallengeRecord?
    ) throws(StorageError) {
        try Self.checkBounds(session: session, events: events)
        var parameters = PostgresParameters()
        // The spent challenge first: of concurrent statements inserting the same bytes, on any nodes, one inserts
        // them and the others wait for its commit and insert nothing. Nothing else is written without it.
        var spent = ""
        var spentCondition = ""
        if let spending {
            let values = [
                parameters.bind(.bytea(spending.challenge), as: "bytea"), parameters.bind(.text(spending.ceremony.rawValue), as: "text"),
                parameters.bind(.text(spending.userVerification), as: "text"), parameters.bind(.bytea(spending.context), as: "bytea"),
                parameters.bind(.date(spending.expiresAt), as: "float8"),
            ]
            spent = """
                spent AS (
                    INSERT INTO challenges (challenge, ceremony, user_verification, context, expires_at)
                    VALUES (\(values.joined(separator: ", "))) ON CONFLICT (challenge) DO NOTHING RETURNING 1
                ),
                """
            spentCondition = " AND EXISTS (SELECT 1 FROM spent)"
        }
        let credentialID = parameters.bind(.bytea(update.credentialID), as: "bytea")
        let userID = parameters.bind(.bytea(session.userID), as: "bytea")
        let signCount = parameters.bind(.bigint(Int64(update.signCount)), as: "int8")
        let backupEligible = parameters.bind(.boolean(update.backupEligible), as: "boolean")
        let backupState = parameters.bind(.boolean(update.backupState), as: "boolean")
        let usedAt = parameters.bind(.date(update.usedAt), as: "float8")
        let cloneWarning = parameters.bind(.boolean(update.cloneWarning), as: "boolean")
        let backupEligibilityChanged = parameters.bind(.boolean(update.backupEligibilityChanged), as: "boolean")
        let sessionValues = parameters.bind(PostgresRecords.sessionValues(session))
        // §7.2 step 23 against the counter stored now: the row is updated only when the counter increased (the row
        // lock orders concurrent sign-ins on any nodes); the session is inserted only when the row was updated, and
        // the events only when the session was; a duplicate token fails all of them.
        var sql = """
            WITH \(spent) recorded AS (
                UPDATE credentials SET sign_count = \(signCount), backup_eligible = \(backupEligible), backup_state = \(backupState),
                    last_used_at = \(usedAt), clone_warning = (clone_warning OR \(cloneWarning)),
                    backup_eligibility_changed = (backup_eligibility_changed OR \(backupEligibilityChanged))
                WHERE id = \(credentialID) AND user_id = \(userID) AND (sign_count < \(signCount) OR (\(signCount) = 0 AND sign_count = 0))\(spentCondition)
                    AND NOT EXISTS (SELECT 1 FROM users WHERE id = \(userID) AND disabled)
                RETURNING user_id
            ), started AS (
                INSERT INTO sessions (\(PostgresRecords.sessionColumns)) SELECT \(sessionValues) FROM recorded RETURNING user_id
            )
            """
        if !events.isEmpty {
            sql += ", " + PostgresRecords.appendingEvents(events, lockingUser: session.userID, after: "started", parameters: &parameters)
        }
        sql += spending == nil ? " SELECT count(*), 1 FROM started" : " SELECT (SELECT count(*) FROM started), (SELECT count(*) FROM spent)"
        let outcome = try withConnection { connection throws(PostgresError) -> CounterUpdate in
            let counts = try connection.run(sql, parameters.values) { row throws(PostgresError) in (try row.integer(0), try row.integer(1)) }
            guard counts.first?.1 == 1 else { return .challengeSpent }
            guard counts.first?.0 == 0 else { return .recorded }
            let disabled = try connection.run("SELECT 1 FROM users WHERE id = $1 AND disabled", [.bytea(session.userID)])
            guard disabled == 0 else { return .userDisabled }
            let found = try connection.run(
                "SELECT 1 FROM credentials WHERE id = $1 AND user_id = $2",
                [.bytea(update.credentialID), .bytea(session.userID)]
            )
            return found == 0 ? .credentialMissing : .counterNotIncreased
        }
        try outcome.check()
    }

    public func completeRegistration(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent],
        mail: [NewMail]
    ) throws(StorageError) {
        try Self.checkRegistration(newUser: newUser, credential: credential, session: session, events: events)
        for message in mail { try message.validate() }
        var parameters = PostgresParameters()
        var writes: [String] = []
        if let newUser {
            writes.append(
                "created AS (INSERT INTO users (\(PostgresRecords.userColumns)) VALUES (\(parameters.bind(PostgresRecords.userValues(newUser)))))"
            )
        }
        // An existing user that is disabled gets neither the credential nor the session (one snapshot for both).
        let userID = parameters.bind(.bytea(session.userID), as: "bytea")
        let enabled = "WHERE NOT EXISTS (SELECT 1 FROM users WHERE id = \(userID) AND disabled)"
        let credentialValues = parameters.bind(try PostgresRecords.credentialValues(credential))
        writes.append("added AS (INSERT INTO credentials (\(PostgresRecords.credentialColumns)) SELECT \(credentialValues) \(enabled))")
        let sessionValues = parameters.bind(PostgresRecords.sessionValues(session))
        writes.append("started AS (INSERT INTO sessions (\(PostgresRecords.sessionColumns)) SELECT \(sessionValues) \(enabled) RETURNING user_id)")
        if !events.isEmpty {
            // A new account's row is this statement's own: no other transaction can append its events before the
            // commit, so only an existing account's row is locked.
            let lockedUser = newUser == nil ? session.userID : nil
            writes.append(PostgresRecords.appendingEvents(events, lockingUser: lockedUser, after: "started", parameters: &parameters))
        }
        // The notices, in the same statement, only when the session (and so the passkey) was stored.
        for (index, message) in mail.enumerated() {
            let created = parameters.bind(.date(message.createdAt), as: "float8")
            // A suppressed recipient's notice is recorded as suppressed, without its message (`enqueueMail`).
            let suppressed =
                "EXISTS (SELECT 1 FROM mail_suppressions WHERE address_key = \(parameters.bind(.text(MailSuppression.key(message.recipient)), as: "text")))"
            let values = [
                parameters.bind(.text(message.kind), as: "text"), parameters.bind(.text(message.recipient), as: "text"),
                parameters.bind(.optional(message.userID, PostgresValue.bytea), as: "bytea"), parameters.bind(.text(message.messageID), as: "text"),
                "CASE WHEN \(suppressed) THEN NULL ELSE \(parameters.bind(.bytea(message.message), as: "bytea")) END",
                "CASE WHEN \(suppressed) THEN 'suppressed' ELSE 'pending' END", "0", created, "CASE WHEN \(suppressed) THEN NULL ELSE \(created) END",
                "0", created,
            ]
            writes.append(
                "mailed\(index) AS (INSERT INTO mail_outbox (kind, recipient, user_id, message_id, message, status, attempts, created_at, "
                    + "next_attempt_at, lease_until, updated_at) SELECT \(values.joined(separator: ", ")) FROM started)"
            )
        }
        let sql = "WITH \(writes.joined(separator: ", ")) SELECT count(*) FROM started"
        let started = try withConnection { connection throws(PostgresError) -> Int64 in
            try connection.run(sql, parameters.values) { row throws(PostgresError) in try row.integer(0) }.first ?? 0
        }
        guard started == 1 else { throw StorageError(.userDisabled, "the user is disabled") }
    }
}
