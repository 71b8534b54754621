import Foundation
import Storage

/// Each ceremony's final writes are one statement, events included: atomic without BEGIN and COMMIT, and one round
/// trip to the database: a call of a function of the schema (`PostgresMigrations.ceremonyFunctionsSchema`), which the
/// server plans once per connection even through a transaction-mode pooler.
extension PostgresStore {
    /// Step 28's function (`PostgresMigrations.signInAnswerSchema`): step 25's write with what the verification
    /// assumed (step 26), as simple statements (step 27), answering the owner's row as locked by the write in columns of
    /// their own. Steps 25's and 27's functions stay in the schema, unused here: nodes built before call them during a
    /// rolling upgrade.
    public func completeAuthentication(
        _ update: AuthenticationUpdate,
        session: SessionRecord,
        events: [NewEvent],
        spending: ChallengeRecord?,
        expecting: SignInExpectation
    ) throws(StorageError) -> UserRecord {
        try Self.checkBounds(session: session, events: events)
        let call = PostgresValue.record(typed: Self.signInFields(update, session: session, events: events, spending: spending, expecting: expecting))
        let written = try withConnection { connection throws(PostgresError) -> (String, UserRecord?)? in
            try connection.run(Self.signInCall, [call]) { row throws(PostgresError) in
                let answer = try row.composite(0, fields: Self.signInAnswerFields)
                let outcome = answer.text(0)
                return (outcome, outcome == "recorded" ? try PostgresRecords.userRecord(answer.columns(from: 1)) : nil)
            }.first
        }
        try Self.check(signIn: written?.0)
        guard let owner = written?.1 else { throw StorageError(.unavailable, "the sign-in's function answered no owner") }
        return owner
    }

    /// The call of step 28's write: its arguments one composite value (`passkeyd_sign_in_call`, its type inferred from
    /// the argument's), so that a call parsed, analysed and planned each time, as through a transaction-mode pooler,
    /// handles one placeholder instead of 35; its answer one column, the answer as a composite value (the outcome, then
    /// `PostgresRecords.userColumns`), without `FROM`: no function scan, no tuple store.
    static let signInCall = "SELECT passkeyd_sign_in($1)"

    /// `passkeyd_sign_in_answer`'s fields: the outcome, then the owner's columns.
    static let signInAnswerFields = 1 + PostgresRecords.userColumns.split(separator: ",").count

    /// The sign-in's arguments with the types they are declared with (steps 26 and 27 take them as arguments, step 28 as
    /// the fields of `passkeyd_sign_in_call`, in the same order): the spent challenge (NULL: none), the counter and
    /// flags, the session but its user, the events, what the verification assumed.
    static func signInFields(
        _ update: AuthenticationUpdate,
        session: SessionRecord,
        events: [NewEvent],
        spending: ChallengeRecord?,
        expecting: SignInExpectation
    ) -> [(PostgresValue, String)] {
        var fields: [(PostgresValue, String)] = [
            (.optional(spending?.challenge, PostgresValue.bytea), "bytea"),
            (.optional(spending?.ceremony.rawValue, PostgresValue.text), "text"),
            (.optional(spending?.userVerification, PostgresValue.text), "text"),
            (.optional(spending?.context, PostgresValue.bytea), "bytea"),
            (.optional(spending?.expiresAt, PostgresValue.date), "float8"),
            (.bytea(update.credentialID), "bytea"), (.bytea(session.userID), "bytea"),
            (.bigint(Int64(update.signCount)), "int8"), (.boolean(update.backupEligible), "boolean"),
            (.boolean(update.backupState), "boolean"), (.date(update.usedAt), "float8"),
            (.boolean(update.cloneWarning), "boolean"), (.boolean(update.backupEligibilityChanged), "boolean"),
        ]
        // The session's columns but its user (bound above), in `sessionColumns` order.
        var sessionValues = PostgresRecords.sessionValues(session)
        sessionValues.remove(at: 2)
        fields += sessionValues
        fields += eventValues(events)
        fields += [
            (.bytea(expecting.publicKey), "bytea"), (.boolean(expecting.backupEligible), "boolean"),
            (.bytea(expecting.userHandle), "bytea"),
        ]
        return fields
    }

    /// Throws the contract's error for the sign-in function's answer other than `recorded`.
    private static func check(signIn outcome: String?) throws(StorageError) {
        switch outcome {
        case "recorded": return
        case "challenge_spent": try CounterUpdate.challengeSpent.check()
        case "user_disabled": try CounterUpdate.userDisabled.check()
        case "credential_changed": try CounterUpdate.credentialChanged.check()
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
        let call = PostgresValue.record(
            typed: try Self.registrationFields(newUser: newUser, credential: credential, session: session, events: events, mail: mail)
        )
        let started = try withConnection { connection throws(PostgresError) -> Int64 in
            try connection.run(Self.registrationCall, [call]) { row throws(PostgresError) in try row.integer(0) }.first ?? 0
        }
        guard started == 1 else { throw StorageError(.userDisabled, "the user is disabled") }
    }

    /// The call of step 28's registration write: its arguments one composite value (`passkeyd_registration_call`, its
    /// type inferred from the argument's), so that a call parsed, analysed and planned each time, as through a
    /// transaction-mode pooler, handles one placeholder instead of 56.
    static let registrationCall = "SELECT passkeyd_register($1)"

    /// The registration's arguments with the types they are declared with (step 24 takes them as arguments, step 28 as
    /// the fields of `passkeyd_registration_call`, in the same order): whether the account is new, its columns (NULL
    /// without one, but its ID), the passkey's and the session's but their user, the events, the notices.
    static func registrationFields(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent],
        mail: [NewMail]
    ) throws(StorageError) -> [(PostgresValue, String)] {
        var fields: [(PostgresValue, String)] = [(.boolean(newUser != nil), "boolean")]
        var userValues = newUser.map(PostgresRecords.userValues) ?? Self.absentUserTypes.map { (PostgresValue.null, $0) }
        userValues[0] = (.bytea(session.userID), "bytea")
        fields += userValues
        var credentialValues = try PostgresRecords.credentialValues(credential)
        credentialValues.remove(at: 1)
        fields += credentialValues
        var sessionValues = PostgresRecords.sessionValues(session)
        sessionValues.remove(at: 2)
        fields += sessionValues
        fields += eventValues(events)
        fields += [
            (.array(mail, of: 25) { .text($0.kind) }, "text[]"),
            (.array(mail, of: 25) { .text($0.recipient) }, "text[]"),
            (.array(mail, of: 17) { .optional($0.userID, PostgresValue.bytea) }, "bytea[]"),
            (.array(mail, of: 25) { .text($0.messageID) }, "text[]"),
            (.array(mail, of: 17) { .bytea($0.message) }, "bytea[]"),
            (.array(mail, of: 701) { .date($0.createdAt) }, "float8[]"),
            (.array(mail, of: 25) { .text(MailSuppression.key($0.recipient)) }, "text[]"),
        ]
        return fields
    }

    /// The types of `PostgresRecords.userValues`, for a registration without a new account (its values all NULL).
    private static let absentUserTypes = [
        "bytea", "text", "text", "float8", "boolean", "text", "text", "boolean", "text", "text", "boolean", "text", "text",
    ]

    /// The events' columns as arrays (`type`, `user_id`, `occurred_at`, `data`, `uuid`), for the ceremonies' functions.
    private static func eventValues(_ events: [NewEvent]) -> [(PostgresValue, String)] {
        [
            (.array(events, of: 25) { .text($0.type) }, "text[]"),
            (.array(events, of: 17) { .optional($0.userID, PostgresValue.bytea) }, "bytea[]"),
            (.array(events, of: 701) { .date($0.occurredAt) }, "float8[]"),
            (.array(events, of: 17) { .bytea($0.data) }, "bytea[]"),
            (.array(events, of: 25) { .text($0.id.lowercaseText) }, "text[]"),
        ]
    }
}
