import CSQLite
import Foundation
import Storage

extension SQLiteRecords {
    static let sessionColumns = """
        token_hash, id, user_id, method, credential_id, apple_subject, user_verified, created_at, authenticated_at, \
        expires_at, user_agent, last_used_at, federated_issuer, federated_subject, parent_id
        """

    /// The condition that keeps a disabled user's sessions from signing anyone in, whatever raced with disabling it.
    static let userEnabled = "NOT EXISTS (SELECT 1 FROM users WHERE users.id = sessions.user_id AND users.disabled = 1)"

    /// The condition that a hand-off session's parent is still stored and unexpired (`?2` is now): a session whose
    /// parent ended by any path, even one that did not delete it, signs nobody in.
    static let parentLive = """
        (sessions.parent_id IS NULL OR EXISTS (SELECT 1 FROM sessions AS parent WHERE parent.id = sessions.parent_id AND parent.expires_at > ?2))
        """

    /// Stores a session unless its user is disabled.
    static let sessionInsert = SQLiteQuery(
        """
        INSERT INTO sessions (\(sessionColumns)) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15
        WHERE NOT EXISTS (SELECT 1 FROM users WHERE id = ?3 AND disabled = 1)
        """
    )

    func insertSession(_ session: SessionRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try session.validate() }
        // A disabled user's row stops the insert (a missing user fails the foreign key).
        let inserted = try run { connection throws(SQLiteError) in
            try connection.statement(Self.sessionInsert).run([
                .blob(session.tokenHash), .blob(session.id), .blob(session.userID), .text(session.method.rawValue),
                session.credentialID.map { .blob($0) } ?? .null, session.appleSubject.map { .text($0) } ?? .null,
                .bool(session.userVerified), .date(session.createdAt), .date(session.authenticatedAt), .date(session.expiresAt),
                session.userAgent.map { .text($0) } ?? .null, session.lastUsedAt.map { .date($0) } ?? .null,
                session.federatedIssuer.map { .text($0) } ?? .null, session.federatedSubject.map { .text($0) } ?? .null,
                session.parentID.map { .blob($0) } ?? .null,
            ])
        }
        guard inserted == 1 else { throw StorageError(.userDisabled, "the user is disabled") }
    }

    func session(tokenHash: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE token_hash = ?1 AND expires_at > ?2 AND \(Self.userEnabled) AND \(Self.parentLive)"
            )
            .run([.blob(tokenHash), .date(now)], row: Self.sessionRecord).first
        }
    }

    func session(id: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE id = ?1 AND expires_at > ?2 AND \(Self.userEnabled) AND \(Self.parentLive)"
            )
            .run([.blob(id), .date(now)], row: Self.sessionRecord).first
        }
    }

    func sessions(userID: [UInt8], now: Date) throws(StorageError) -> [SessionRecord] {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = ?1 AND expires_at > ?2 ORDER BY created_at, id"
            ).run([.blob(userID), .date(now)], row: Self.sessionRecord)
        }
    }

    func deleteSession(tokenHash: [UInt8]) throws(StorageError) -> [SessionRecord] {
        try deleteSessions(where: "token_hash = ?1", [.blob(tokenHash)])
    }

    func deleteSession(id: [UInt8], userID: [UInt8]) throws(StorageError) -> [SessionRecord] {
        try deleteSessions(where: "id = ?1 AND user_id = ?2", [.blob(id), .blob(userID)])
    }

    func deleteSessions(userID: [UInt8], except keptID: [UInt8]?) throws(StorageError) -> [SessionRecord] {
        try deleteSessions(where: "user_id = ?1 AND (?2 IS NULL OR id <> ?2)", [.blob(userID), keptID.map { .blob($0) } ?? .null])
    }

    func deleteSessions(appleSubject: String) throws(StorageError) -> [SessionRecord] {
        try deleteSessions(where: "apple_subject = ?1", [.text(appleSubject)])
    }

    func deleteSessions(federatedIssuer: String, subject: String) throws(StorageError) -> [SessionRecord] {
        try deleteSessions(where: "federated_issuer = ?1 AND federated_subject = ?2", [.text(federatedIssuer), .text(subject)])
    }

    func moveSessions(appleSubject: String, to newSubject: String) throws(StorageError) -> Int {
        try run { connection throws(SQLiteError) in
            try connection.statement("UPDATE sessions SET apple_subject = ?2 WHERE apple_subject = ?1").run([.text(appleSubject), .text(newSubject)])
        }
    }

    /// One `DELETE … RETURNING` of the sessions matching `condition`, then one of the sessions handed off from those
    /// deleted, until none is left; ordered as the contract says.
    private func deleteSessions(where condition: String, _ parameters: [SQLiteValue]) throws(StorageError) -> [SessionRecord] {
        var round = try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM sessions WHERE \(condition) RETURNING \(Self.sessionColumns)")
                .run(parameters, row: Self.sessionRecord)
        }
        var deleted: [SessionRecord] = []
        while !round.isEmpty {
            deleted += round
            let parentIDs = round.map(\.id)
            let placeholders = (1...parentIDs.count).map { "?\($0)" }.joined(separator: ", ")
            round = try run { connection throws(SQLiteError) in
                try connection.statement("DELETE FROM sessions WHERE parent_id IN (\(placeholders)) RETURNING \(Self.sessionColumns)")
                    .run(parentIDs.map { .blob($0) }, row: Self.sessionRecord)
            }
        }
        return deleted.sorted(by: SessionRecord.precedes)
    }

    static func sessionRecord(_ row: SQLiteRow) throws(SQLiteError) -> SessionRecord {
        guard let method = SessionMethod(rawValue: row.text(3)) else {
            throw SQLiteError(.corrupt, "a session has an unknown sign-in method")
        }
        return SessionRecord(
            tokenHash: row.blob(0),
            id: row.blob(1),
            userID: row.blob(2),
            method: method,
            credentialID: row.isNull(4) ? nil : row.blob(4),
            appleSubject: row.isNull(5) ? nil : row.text(5),
            federatedIssuer: row.isNull(12) ? nil : row.text(12),
            federatedSubject: row.isNull(13) ? nil : row.text(13),
            parentID: row.isNull(14) ? nil : row.blob(14),
            userVerified: row.bool(6),
            createdAt: row.date(7),
            authenticatedAt: row.date(8),
            expiresAt: row.date(9),
            userAgent: row.isNull(10) ? nil : row.text(10),
            lastUsedAt: row.isNull(11) ? nil : row.date(11)
        )
    }
}
