import Foundation
import Storage

extension PostgresRecords {
    static let sessionColumns = """
        token_hash, id, user_id, method, credential_id, apple_subject, user_verified, created_at, authenticated_at, \
        expires_at, user_agent, last_used_at, federated_issuer, federated_subject, parent_id
        """

    func insertSession(_ session: SessionRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try session.validate() }
        var parameters = PostgresParameters()
        let values = parameters.bind(Self.sessionValues(session))
        let userID = parameters.bind(.bytea(session.userID), as: "bytea")
        // A disabled user's row stops the insert (a missing user fails the foreign key).
        let inserted = try run { connection throws(PostgresError) in
            try connection.run(
                """
                INSERT INTO sessions (\(Self.sessionColumns)) SELECT \(values)
                WHERE NOT EXISTS (SELECT 1 FROM users WHERE id = \(userID) AND disabled)
                """,
                parameters.values
            )
        }
        guard inserted == 1 else { throw StorageError(.userDisabled, "the user is disabled") }
    }

    /// The condition that keeps a disabled user's sessions from signing anyone in, whatever raced with disabling it.
    static let userEnabled = "NOT EXISTS (SELECT 1 FROM users WHERE users.id = sessions.user_id AND users.disabled)"

    /// The condition that a hand-off session's parent is still stored and unexpired (`$2` is now): a session whose
    /// parent ended by any path, even one that did not delete it, signs nobody in.
    static let parentLive = """
        (sessions.parent_id IS NULL OR EXISTS (SELECT 1 FROM sessions AS parent WHERE parent.id = sessions.parent_id AND parent.expires_at > $2))
        """

    func session(tokenHash: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE token_hash = $1 AND expires_at > $2 AND \(Self.userEnabled) AND \(Self.parentLive)",
                [.bytea(tokenHash), .date(now)],
                row: Self.sessionRecord
            ).first
        }
    }

    func session(id: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE id = $1 AND expires_at > $2 AND \(Self.userEnabled) AND \(Self.parentLive)",
                [.bytea(id), .date(now)],
                row: Self.sessionRecord
            ).first
        }
    }

    func sessions(userID: [UInt8], now: Date) throws(StorageError) -> [SessionRecord] {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = $1 AND expires_at > $2 ORDER BY created_at, id",
                [.bytea(userID), .date(now)],
                row: Self.sessionRecord
            )
        }
    }

    func deleteSession(tokenHash: [UInt8]) throws(StorageError) -> [SessionRecord] {
        try deleteSessions(where: "token_hash = $1", [.bytea(tokenHash)])
    }

    func deleteSession(id: [UInt8], userID: [UInt8]) throws(StorageError) -> [SessionRecord] {
        try deleteSessions(where: "id = $1 AND user_id = $2", [.bytea(id), .bytea(userID)])
    }

    func deleteSessions(userID: [UInt8], except keptID: [UInt8]?) throws(StorageError) -> [SessionRecord] {
        try deleteSessions(where: "user_id = $1 AND id IS DISTINCT FROM $2::bytea", [.bytea(userID), .optional(keptID, PostgresValue.bytea)])
    }

    func deleteSessions(appleSubject: String) throws(StorageError) -> [SessionRecord] {
        try deleteSessions(where: "apple_subject = $1", [.text(appleSubject)])
    }

    func deleteSessions(federatedIssuer: String, subject: String) throws(StorageError) -> [SessionRecord] {
        try deleteSessions(where: "federated_issuer = $1 AND federated_subject = $2", [.text(federatedIssuer), .text(subject)])
    }

    func moveSessions(appleSubject: String, to newSubject: String) throws(StorageError) -> Int {
        try run { connection throws(PostgresError) in
            try connection.run("UPDATE sessions SET apple_subject = $2 WHERE apple_subject = $1", [.text(appleSubject), .text(newSubject)])
        }
    }

    /// One `DELETE … RETURNING` of the sessions matching `condition`, then one of the sessions handed off from those
    /// deleted, until none is left; ordered as the contract says.
    private func deleteSessions(where condition: String, _ parameters: [PostgresValue]) throws(StorageError) -> [SessionRecord] {
        var round = try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM sessions WHERE \(condition) RETURNING \(Self.sessionColumns)", parameters, row: Self.sessionRecord)
        }
        var deleted: [SessionRecord] = []
        while !round.isEmpty {
            deleted += round
            let placeholders = (1...round.count).map { "$\($0)" }.joined(separator: ", ")
            let parentIDs: [PostgresValue] = round.map { .bytea($0.id) }
            round = try run { connection throws(PostgresError) in
                try connection.run(
                    "DELETE FROM sessions WHERE parent_id IN (\(placeholders)) RETURNING \(Self.sessionColumns)",
                    parentIDs,
                    row: Self.sessionRecord
                )
            }
        }
        return deleted.sorted(by: SessionRecord.precedes)
    }

    /// The values of `sessionColumns`, with their types.
    static func sessionValues(_ session: SessionRecord) -> [(PostgresValue, String)] {
        [
            (.bytea(session.tokenHash), "bytea"), (.bytea(session.id), "bytea"), (.bytea(session.userID), "bytea"),
            (.text(session.method.rawValue), "text"), (.optional(session.credentialID, PostgresValue.bytea), "bytea"),
            (.optional(session.appleSubject, PostgresValue.text), "text"), (.boolean(session.userVerified), "boolean"),
            (.date(session.createdAt), "float8"), (.date(session.authenticatedAt), "float8"), (.date(session.expiresAt), "float8"),
            (.optional(session.userAgent, PostgresValue.text), "text"), (.optional(session.lastUsedAt, PostgresValue.date), "float8"),
            (.optional(session.federatedIssuer, PostgresValue.text), "text"), (.optional(session.federatedSubject, PostgresValue.text), "text"),
            (.optional(session.parentID, PostgresValue.bytea), "bytea"),
        ]
    }

    static func sessionRecord(_ row: PostgresRow) throws(PostgresError) -> SessionRecord {
        guard let method = SessionMethod(rawValue: row.text(3)) else {
            throw PostgresError(.decodingFailed, "a session has an unknown sign-in method")
        }
        return SessionRecord(
            tokenHash: row.bytes(0),
            id: row.bytes(1),
            userID: row.bytes(2),
            method: method,
            credentialID: row.isNull(4) ? nil : row.bytes(4),
            appleSubject: row.isNull(5) ? nil : row.text(5),
            federatedIssuer: row.isNull(12) ? nil : row.text(12),
            federatedSubject: row.isNull(13) ? nil : row.text(13),
            parentID: row.isNull(14) ? nil : row.bytes(14),
            userVerified: try row.boolean(6),
            createdAt: try row.date(7),
            authenticatedAt: try row.date(8),
            expiresAt: try row.date(9),
            userAgent: row.isNull(10) ? nil : row.text(10),
            lastUsedAt: row.isNull(11) ? nil : try row.date(11)
        )
    }
}
