import Foundation
import Storage

extension SQLiteRecords {
    static let appleIdentityColumns = """
        subject, user_id, email, email_verified, is_private_email, email_disabled, real_user_status, transfer_subject, \
        encrypted_refresh_token, refresh_token_client_id, created_at
        """

    func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.appleIdentityColumns) FROM apple_identities WHERE subject = ?1")
                .run([.text(subject)], row: Self.appleIdentityRecord).first
        }
    }

    func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord] {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(Self.appleIdentityColumns) FROM apple_identities WHERE user_id = ?1 ORDER BY created_at, subject"
            ).run([.blob(userID)], row: Self.appleIdentityRecord)
        }
    }

    func insertAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError) {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "INSERT INTO apple_identities (\(Self.appleIdentityColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
            ).run([
                .text(identity.subject), .blob(identity.userID), identity.email.map { .text($0) } ?? .null,
                .bool(identity.emailVerified), .bool(identity.isPrivateEmail), .bool(identity.emailDisabled),
                identity.realUserStatus.map { .integer(Int64($0)) } ?? .null, identity.transferSubject.map { .text($0) } ?? .null,
                identity.encryptedRefreshToken.map { .blob($0) } ?? .null, identity.refreshTokenClientID.map { .text($0) } ?? .null,
                .date(identity.createdAt),
            ])
        }
    }

    func deleteAppleIdentity(subject: String) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM apple_identities WHERE subject = ?1").run([.text(subject)]) == 1
        }
    }

    func updateAppleEmailState(subject: String, emailDisabled: Bool) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement("UPDATE apple_identities SET email_disabled = ?2 WHERE subject = ?1")
                .run([.text(subject), .bool(emailDisabled)]) == 1
        }
    }

    func setAppleRefreshToken(subject: String, encryptedToken: [UInt8]?, clientID: String?) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "UPDATE apple_identities SET encrypted_refresh_token = ?2, refresh_token_client_id = ?3 WHERE subject = ?1"
            ).run([.text(subject), encryptedToken.map { .blob($0) } ?? .null, clientID.map { .text($0) } ?? .null]) == 1
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

    static func appleIdentityRecord(_ row: SQLiteRow) throws(SQLiteError) -> AppleIdentityRecord {
        AppleIdentityRecord(
            subject: row.text(0),
            userID: row.blob(1),
            email: row.isNull(2) ? nil : row.text(2),
            emailVerified: row.bool(3),
            isPrivateEmail: row.bool(4),
            emailDisabled: row.bool(5),
            realUserStatus: row.isNull(6) ? nil : Int(row.integer(6)),
            transferSubject: row.isNull(7) ? nil : row.text(7),
            encryptedRefreshToken: row.isNull(8) ? nil : row.blob(8),
            refreshTokenClientID: row.isNull(9) ? nil : row.text(9),
            createdAt: row.date(10)
        )
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
