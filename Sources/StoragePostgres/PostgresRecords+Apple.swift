import Foundation
import Storage

extension PostgresRecords {
    static let appleIdentityColumns = """
        subject, user_id, email, email_verified, is_private_email, email_disabled, consent_revoked, real_user_status, \
        transfer_subject, transferred_at, last_sign_in_at, created_at
        """
    static let appleRefreshTokenColumns = "subject, client_id, encrypted_token"
    static let appleRevocationColumns = "id, encrypted_token, client_id, not_before, attempts"

    func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.appleIdentityColumns) FROM apple_identities WHERE subject = $1",
                [.text(subject)],
                row: Self.appleIdentityRecord
            ).first
        }
    }

    func appleIdentity(transferSubject: String) throws(StorageError) -> AppleIdentityRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.appleIdentityColumns) FROM apple_identities WHERE transfer_subject = $1",
                [.text(transferSubject)],
                row: Self.appleIdentityRecord
            ).first
        }
    }

    func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord] {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.appleIdentityColumns) FROM apple_identities WHERE user_id = $1 ORDER BY created_at, subject COLLATE \"C\"",
                [.bytea(userID)],
                row: Self.appleIdentityRecord
            )
        }
    }

    /// The C collation compares byte-wise, as the contract says.
    func appleIdentities(after subject: String?, limit: Int) throws(StorageError) -> [AppleIdentityRecord] {
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                SELECT \(Self.appleIdentityColumns) FROM apple_identities
                WHERE $1::text IS NULL OR subject COLLATE "C" > $1::text COLLATE "C" ORDER BY subject COLLATE "C" LIMIT $2
                """,
                [.optional(subject, PostgresValue.text), .bigint(Int64(max(0, limit)))],
                row: Self.appleIdentityRecord
            )
        }
    }

    func insertAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError) {
        var parameters = PostgresParameters()
        let values = parameters.bind(Self.appleIdentityValues(identity))
        try run { connection throws(PostgresError) in
            try connection.run("INSERT INTO apple_identities (\(Self.appleIdentityColumns)) VALUES (\(values))", parameters.values)
        }
    }

    /// Refresh tokens go with it (ON DELETE CASCADE).
    func deleteAppleIdentity(subject: String) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM apple_identities WHERE subject = $1", [.text(subject)]) == 1
        }
    }

    /// Refresh tokens follow a new subject (ON UPDATE CASCADE).
    func updateAppleIdentity(_ identity: AppleIdentityRecord, subject: String) throws(StorageError) -> Bool {
        var parameters = PostgresParameters()
        let values = parameters.bind(Self.appleIdentityValues(identity))
        let old = parameters.bind(.text(subject), as: "text")
        return try run { connection throws(PostgresError) in
            try connection.run(
                "UPDATE apple_identities SET (\(Self.appleIdentityColumns)) = ROW(\(values)) WHERE subject = \(old)",
                parameters.values
            ) == 1
        }
    }

    func moveAppleIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try run { connection throws(PostgresError) in
            try connection.run("UPDATE apple_identities SET user_id = $2 WHERE user_id = $1", [.bytea(userID), .bytea(targetUserID)])
        }
    }

    /// One upsert, inserting nothing when the identity is missing.
    func setAppleRefreshToken(subject: String, clientID: String, encryptedToken: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                INSERT INTO apple_refresh_tokens (\(Self.appleRefreshTokenColumns))
                SELECT $1::text, $2::text, $3::bytea WHERE EXISTS (SELECT 1 FROM apple_identities WHERE subject = $1::text)
                ON CONFLICT (subject, client_id) DO UPDATE SET encrypted_token = EXCLUDED.encrypted_token
                """,
                [.text(subject), .text(clientID), .bytea(encryptedToken)]
            ) == 1
        }
    }

    func appleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord] {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.appleRefreshTokenColumns) FROM apple_refresh_tokens WHERE subject = $1 ORDER BY client_id COLLATE \"C\"",
                [.text(subject)],
                row: Self.appleRefreshTokenRecord
            )
        }
    }

    func deleteAppleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord] {
        let deleted = try run { connection throws(PostgresError) in
            try connection.run(
                "DELETE FROM apple_refresh_tokens WHERE subject = $1 RETURNING \(Self.appleRefreshTokenColumns)",
                [.text(subject)],
                row: Self.appleRefreshTokenRecord
            )
        }
        return deleted.sorted { Array($0.clientID.utf8).lexicographicallyPrecedes(Array($1.clientID.utf8)) }
    }

    func insertLinkDecline(_ decline: LinkDecline) throws(StorageError) {
        try run { connection throws(PostgresError) in
            try connection.run(
                "INSERT INTO link_declines (first_user_id, second_user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                [.bytea(decline.first), .bytea(decline.second)]
            )
        }
    }

    func isLinkDeclined(_ decline: LinkDecline) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT 1 FROM link_declines WHERE first_user_id = $1 AND second_user_id = $2",
                [.bytea(decline.first), .bytea(decline.second)]
            ) == 1
        }
    }

    /// One upsert: a new hash is inserted, an expired entry replaced, an unexpired one left alone (no row changed). A
    /// concurrent insert of the same hash on another node waits for this one's commit, then changes nothing (or,
    /// in a serializable transaction, fails to serialise and runs again, finding the entry).
    func rememberNonce(_ hash: [UInt8], until: Date, now: Date) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                INSERT INTO apple_nonces (hash, expires_at) VALUES ($1, $2)
                ON CONFLICT (hash) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE apple_nonces.expires_at <= $3
                """,
                [.bytea(hash), .date(until), .date(now)]
            ) == 1
        }
    }

    func appleNotificationWatermark(subject: String, now: Date) throws(StorageError) -> Date? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT event_at FROM apple_notification_watermarks WHERE subject = $1 AND expires_at > $2",
                [.text(subject), .date(now)]
            ) { row throws(PostgresError) in try row.date(0) }.first
        }
    }

    /// One upsert: an expired entry is replaced, an unexpired one raised.
    func raiseAppleNotificationWatermark(subject: String, to eventAt: Date, until: Date, now: Date) throws(StorageError) {
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                INSERT INTO apple_notification_watermarks AS stored (subject, event_at, expires_at) VALUES ($1, $2, $3)
                ON CONFLICT (subject) DO UPDATE SET
                    event_at = CASE WHEN stored.expires_at <= $4 THEN EXCLUDED.event_at ELSE GREATEST(stored.event_at, EXCLUDED.event_at) END,
                    expires_at = CASE WHEN stored.expires_at <= $4 THEN EXCLUDED.expires_at ELSE GREATEST(stored.expires_at, EXCLUDED.expires_at) END
                """,
                [.text(subject), .date(eventAt), .date(until), .date(now)]
            )
        }
    }

    func enqueueRevocation(token encryptedToken: [UInt8], clientID: String, notBefore: Date) throws(StorageError) -> Int64 {
        let ids = try run { connection throws(PostgresError) in
            try connection.run(
                "INSERT INTO apple_revocations (encrypted_token, client_id, not_before, attempts) VALUES ($1, $2, $3, 0) RETURNING id",
                [.bytea(encryptedToken), .text(clientID), .date(notBefore)]
            ) { row throws(PostgresError) in try row.integer(0) }
        }
        guard let id = ids.first else { throw StorageError(.unavailable, "the revocation was not queued") }
        return id
    }

    /// The values of `appleIdentityColumns`, with their types.
    static func appleIdentityValues(_ identity: AppleIdentityRecord) -> [(PostgresValue, String)] {
        [
            (.text(identity.subject), "text"), (.bytea(identity.userID), "bytea"), (.optional(identity.email, PostgresValue.text), "text"),
            (.boolean(identity.emailVerified), "boolean"), (.boolean(identity.isPrivateEmail), "boolean"),
            (.boolean(identity.emailDisabled), "boolean"), (.boolean(identity.consentRevoked), "boolean"),
            (.optional(identity.realUserStatus) { .bigint(Int64($0)) }, "int8"), (.optional(identity.transferSubject, PostgresValue.text), "text"),
            (.optional(identity.transferredAt, PostgresValue.date), "float8"), (.optional(identity.lastSignInAt, PostgresValue.date), "float8"),
            (.date(identity.createdAt), "float8"),
        ]
    }

    static func appleIdentityRecord(_ row: PostgresRow) throws(PostgresError) -> AppleIdentityRecord {
        AppleIdentityRecord(
            subject: row.text(0),
            userID: row.bytes(1),
            email: row.isNull(2) ? nil : row.text(2),
            emailVerified: try row.boolean(3),
            isPrivateEmail: try row.boolean(4),
            emailDisabled: try row.boolean(5),
            consentRevoked: try row.boolean(6),
            realUserStatus: row.isNull(7) ? nil : Int(try row.integer(7)),
            transferSubject: row.isNull(8) ? nil : row.text(8),
            transferredAt: row.isNull(9) ? nil : try row.date(9),
            lastSignInAt: row.isNull(10) ? nil : try row.date(10),
            createdAt: try row.date(11)
        )
    }

    static func appleRefreshTokenRecord(_ row: PostgresRow) throws(PostgresError) -> AppleRefreshTokenRecord {
        AppleRefreshTokenRecord(subject: row.text(0), clientID: row.text(1), encryptedToken: row.bytes(2))
    }

    static func appleRevocationRecord(_ row: PostgresRow) throws(PostgresError) -> AppleRevocationRecord {
        AppleRevocationRecord(
            id: try row.integer(0),
            encryptedToken: row.bytes(1),
            clientID: row.text(2),
            notBefore: try row.date(3),
            attempts: Int(try row.integer(4))
        )
    }
}
