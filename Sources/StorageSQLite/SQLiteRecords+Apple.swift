import Foundation
import Storage

extension SQLiteRecords {
    static let appleIdentityColumns = """
        subject, user_id, email, email_verified, is_private_email, email_disabled, consent_revoked, real_user_status, \
        transfer_subject, transferred_at, last_sign_in_at, created_at
        """
    static let appleRefreshTokenColumns = "subject, client_id, encrypted_token"

    func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.appleIdentityColumns) FROM apple_identities WHERE subject = ?1")
                .run([.text(subject)], row: Self.appleIdentityRecord).first
        }
    }

    func appleIdentity(transferSubject: String) throws(StorageError) -> AppleIdentityRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.appleIdentityColumns) FROM apple_identities WHERE transfer_subject = ?1")
                .run([.text(transferSubject)], row: Self.appleIdentityRecord).first
        }
    }

    func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord] {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(Self.appleIdentityColumns) FROM apple_identities WHERE user_id = ?1 ORDER BY created_at, subject"
            ).run([.blob(userID)], row: Self.appleIdentityRecord)
        }
    }

    /// Text compares byte-wise (the BINARY collation).
    func appleIdentities(after subject: String?, limit: Int) throws(StorageError) -> [AppleIdentityRecord] {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(Self.appleIdentityColumns) FROM apple_identities WHERE ?1 IS NULL OR subject > ?1 ORDER BY subject LIMIT ?2"
            ).run([subject.map { .text($0) } ?? .null, .integer(Int64(max(0, limit)))], row: Self.appleIdentityRecord)
        }
    }

    /// Inserts nothing when the subject is taken, so that a taken subject is reported as such whichever other
    /// uniqueness the row would also break (SQLite reports the first index it checks).
    func insertAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError) {
        let inserted = try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                INSERT INTO apple_identities (\(Self.appleIdentityColumns))
                SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12 WHERE NOT EXISTS (SELECT 1 FROM apple_identities WHERE subject = ?1)
                """
            ).run(Self.appleIdentityValues(identity))
        }
        guard inserted == 1 else {
            try validate { () throws(StorageError) in throw StorageError(.appleIdentityTaken, "the Apple identity is already linked to an account") }
            return
        }
    }

    /// Refresh tokens go with it (ON DELETE CASCADE).
    func deleteAppleIdentity(subject: String) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM apple_identities WHERE subject = ?1").run([.text(subject)]) == 1
        }
    }

    /// Refresh tokens follow a new subject (ON UPDATE CASCADE).
    func updateAppleIdentity(_ identity: AppleIdentityRecord, subject: String) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                UPDATE apple_identities SET subject = ?1, user_id = ?2, email = ?3, email_verified = ?4, is_private_email = ?5,
                    email_disabled = ?6, consent_revoked = ?7, real_user_status = ?8, transfer_subject = ?9, transferred_at = ?10,
                    last_sign_in_at = ?11, created_at = ?12
                WHERE subject = ?13
                """
            ).run(Self.appleIdentityValues(identity) + [.text(subject)]) == 1
        }
    }

    func moveAppleIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try run { connection throws(SQLiteError) in
            try connection.statement("UPDATE apple_identities SET user_id = ?2 WHERE user_id = ?1").run([.blob(userID), .blob(targetUserID)])
        }
    }

    /// One upsert, inserting nothing when the identity is missing.
    func setAppleRefreshToken(subject: String, clientID: String, encryptedToken: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                INSERT INTO apple_refresh_tokens (\(Self.appleRefreshTokenColumns))
                SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM apple_identities WHERE subject = ?1)
                ON CONFLICT (subject, client_id) DO UPDATE SET encrypted_token = excluded.encrypted_token
                """
            ).run([.text(subject), .text(clientID), .blob(encryptedToken)]) == 1
        }
    }

    func appleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord] {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.appleRefreshTokenColumns) FROM apple_refresh_tokens WHERE subject = ?1 ORDER BY client_id")
                .run([.text(subject)], row: Self.appleRefreshTokenRecord)
        }
    }

    func deleteAppleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord] {
        let deleted = try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM apple_refresh_tokens WHERE subject = ?1 RETURNING \(Self.appleRefreshTokenColumns)")
                .run([.text(subject)], row: Self.appleRefreshTokenRecord)
        }
        return deleted.sorted { Array($0.clientID.utf8).lexicographicallyPrecedes(Array($1.clientID.utf8)) }
    }

    func insertLinkDecline(_ decline: LinkDecline) throws(StorageError) {
        try run { connection throws(SQLiteError) in
            try connection.statement("INSERT INTO link_declines (first_user_id, second_user_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING")
                .run([.blob(decline.first), .blob(decline.second)])
        }
    }

    func isLinkDeclined(_ decline: LinkDecline) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try !connection.statement("SELECT 1 FROM link_declines WHERE first_user_id = ?1 AND second_user_id = ?2")
                .run([.blob(decline.first), .blob(decline.second)]) { _ throws(SQLiteError) in () }.isEmpty
        }
    }

    /// One upsert: a new hash is inserted, an expired entry replaced, an unexpired one left alone (no row changed).
    func rememberNonce(_ hash: [UInt8], until: Date, now: Date) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                INSERT INTO apple_nonces (hash, expires_at) VALUES (?1, ?2)
                ON CONFLICT (hash) DO UPDATE SET expires_at = excluded.expires_at WHERE apple_nonces.expires_at <= ?3
                """
            ).run([.blob(hash), .date(until), .date(now)]) == 1
        }
    }

    func appleNotificationWatermark(subject: String, now: Date) throws(StorageError) -> Date? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT event_at FROM apple_notification_watermarks WHERE subject = ?1 AND expires_at > ?2")
                .run([.text(subject), .date(now)]) { row throws(SQLiteError) in row.date(0) }.first
        }
    }

    /// One upsert: an expired entry is replaced, an unexpired one raised.
    func raiseAppleNotificationWatermark(subject: String, to eventAt: Date, until: Date, now: Date) throws(StorageError) {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                INSERT INTO apple_notification_watermarks (subject, event_at, expires_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (subject) DO UPDATE SET
                    event_at = CASE WHEN expires_at <= ?4 THEN excluded.event_at ELSE max(event_at, excluded.event_at) END,
                    expires_at = CASE WHEN expires_at <= ?4 THEN excluded.expires_at ELSE max(expires_at, excluded.expires_at) END
                """
            ).run([.text(subject), .date(eventAt), .date(until), .date(now)])
        }
    }

    func enqueueRevocation(token encryptedToken: [UInt8], clientID: String, notBefore: Date) throws(StorageError) -> Int64 {
        let ids = try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                INSERT INTO apple_revocations (encrypted_token, client_id, not_before, attempts) VALUES (?1, ?2, ?3, 0)
                RETURNING id
                """
            ).run([.blob(encryptedToken), .text(clientID), .date(notBefore)]) { row throws(SQLiteError) in row.integer(0) }
        }
        guard let id = ids.first else { throw StorageError(.unavailable, "the revocation was not queued") }
        return id
    }

    /// The values of `appleIdentityColumns`, as ?1 to ?12.
    static func appleIdentityValues(_ identity: AppleIdentityRecord) -> [SQLiteValue] {
        [
            .text(identity.subject), .blob(identity.userID), identity.email.map { .text($0) } ?? .null, .bool(identity.emailVerified),
            .bool(identity.isPrivateEmail), .bool(identity.emailDisabled), .bool(identity.consentRevoked),
            identity.realUserStatus.map { .integer(Int64($0)) } ?? .null, identity.transferSubject.map { .text($0) } ?? .null,
            identity.transferredAt.map { .date($0) } ?? .null, identity.lastSignInAt.map { .date($0) } ?? .null, .date(identity.createdAt),
        ]
    }

    static func appleIdentityRecord(_ row: SQLiteRow) throws(SQLiteError) -> AppleIdentityRecord {
        AppleIdentityRecord(
            subject: row.text(0),
            userID: row.blob(1),
            email: row.isNull(2) ? nil : row.text(2),
            emailVerified: row.bool(3),
            isPrivateEmail: row.bool(4),
            emailDisabled: row.bool(5),
            consentRevoked: row.bool(6),
            realUserStatus: row.isNull(7) ? nil : Int(row.integer(7)),
            transferSubject: row.isNull(8) ? nil : row.text(8),
            transferredAt: row.isNull(9) ? nil : row.date(9),
            lastSignInAt: row.isNull(10) ? nil : row.date(10),
            createdAt: row.date(11)
        )
    }

    static func appleRefreshTokenRecord(_ row: SQLiteRow) throws(SQLiteError) -> AppleRefreshTokenRecord {
        AppleRefreshTokenRecord(subject: row.text(0), clientID: row.text(1), encryptedToken: row.blob(2))
    }

    static func appleRevocationRecord(_ row: SQLiteRow) throws(SQLiteError) -> AppleRevocationRecord {
        AppleRevocationRecord(
            id: row.integer(0),
            encryptedToken: row.blob(1),
            clientID: row.text(2),
            notBefore: row.date(3),
            attempts: Int(row.integer(4))
        )
    }
}
