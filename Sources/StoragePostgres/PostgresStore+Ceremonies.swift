import Foundation
import Storage

/// Each ceremony's final writes are one statement, events included: atomic without BEGIN and COMMIT, and one round
/// trip to the database. A sign-in's is a call of a function of the schema (`PostgresMigrations.ceremonyFunctionsSchema`),
/// which the server plans once per connection even through a transaction-mode pooler; a registration's is data-modifying
/// CTEs.
extension PostgresStore {
    public func completeAuthentication(
        _ update: AuthenticationUpdate,
        session: SessionRecord,
        events: [NewEvent],
        spending: ChallengeRecord?
    ) throws(StorageError) {
        try Self.checkBounds(session: session, events: events)
        var parameters = PostgresParameters()
        // The spent challenge first (NULL: none), then the counter and flags, the session, the events.
        var arguments = [
            parameters.bind(.optional(spending?.challenge, PostgresValue.bytea), as: "bytea"),
            parameters.bind(.optional(spending?.ceremony.rawValue, PostgresValue.text), as: "text"),
            parameters.bind(.optional(spending?.userVerification, PostgresValue.text), as: "text"),
            parameters.bind(.optional(spending?.context, PostgresValue.bytea), as: "bytea"),
            parameters.bind(.optional(spending?.expiresAt, PostgresValue.date), as: "float8"),
            parameters.bind(.bytea(update.credentialID), as: "bytea"), parameters.bind(.bytea(session.userID), as: "bytea"),
            parameters.bind(.bigint(Int64(update.signCount)), as: "int8"), parameters.bind(.boolean(update.backupEligible), as: "boolean"),
            parameters.bind(.boolean(update.backupState), as: "boolean"), parameters.bind(.date(update.usedAt), as: "float8"),
            parameters.bind(.boolean(update.cloneWarning), as: "boolean"),
            parameters.bind(.boolean(update.backupEligibilityChanged), as: "boolean"),
        ]
        // The session's columns but its user (bound above), in `sessionColumns` order.
        var sessionValues = PostgresRecords.sessionValues(session)
        sessionValues.remove(at: 2)
        arguments.append(parameters.bind(sessionValues))
        arguments += [
            parameters.bind(.array(events, of: 25) { .text($0.type) }, as: "text[]"),
            parameters.bind(.array(events, of: 17) { .optional($0.userID, PostgresValue.bytea) }, as: "bytea[]"),
            parameters.bind(.array(events, of: 701) { .date($0.occurredAt) }, as: "float8[]"),
            parameters.bind(.array(events, of: 17) { .bytea($0.data) }, as: "bytea[]"),
            parameters.bind(.array(events, of: 25) { .text($0.id.lowercaseText) }, as: "text[]"),
        ]
        let sql = "SELECT passkeyd_complete_authentication(\(arguments.joined(separator: ", ")))"
        let outcome = try withConnection { connection throws(PostgresError) -> String? in
            try connection.run(sql, parameters.values) { row throws(PostgresError) in row.text(0) }.first
        }
        switch outcome {
        case "recorded": return
        case "challenge_spent": try CounterUpdate.challengeSpent.check()
        case "user_disabled": try CounterUpdate.userDisabled.check()
        case "credential_missing": try CounterUpdate.credentialMissing.check()
        case "counter_not_increased": try CounterUpdate.counterNotIncreased.check()
        default: throw StorageError(.unavailable, "the sign-in's function answered \(outcome ?? "nothing")")
        }
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
