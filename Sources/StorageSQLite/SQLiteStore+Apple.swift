import Foundation
import Storage

extension SQLiteStore {
    public func createUser(_ user: UserRecord, appleIdentity identity: AppleIdentityRecord) throws(StorageError) {
        guard identity.userID == user.id else { throw .notFound("the Apple identity must belong to the new user") }
        try withConnection { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) in
                try connection.statement(
                    "INSERT INTO users (id, name, display_name, created_at) VALUES (?1, ?2, ?3, ?4)"
                ).run([.blob(user.id), .text(user.name), .text(user.displayName), .date(user.createdAt)])
                try SQLiteStore.insert(identity, into: connection)
            }
        }
    }

    public func linkAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError) {
        try withConnection { connection throws(SQLiteError) in
            try SQLiteStore.insert(identity, into: connection)
        }
    }

    public func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord? {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(SQLiteStore.appleIdentityColumns) FROM apple_identities WHERE subject = ?1"
            ).run([.text(subject)], row: SQLiteStore.appleIdentityRecord).first
        }
    }

    public func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord] {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(SQLiteStore.appleIdentityColumns) FROM apple_identities WHERE user_id = ?1 ORDER BY created_at, subject"
            ).run([.blob(userID)], row: SQLiteStore.appleIdentityRecord)
        }
    }

    public func unlinkAppleIdentity(subject: String) throws(StorageError) -> Bool {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM apple_identities WHERE subject = ?1").run([.text(subject)]) == 1
        }
    }

    public func updateAppleEmailState(subject: String, emailDisabled: Bool) throws(StorageError) -> Bool {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                "UPDATE apple_identities SET email_disabled = ?2 WHERE subject = ?1"
            ).run([.text(subject), .bool(emailDisabled)]) == 1
        }
    }

    public func setAppleRefreshToken(subject: String, encryptedToken: [UInt8]?, clientID: String?) throws(StorageError) -> Bool {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                "UPDATE apple_identities SET encrypted_refresh_token = ?2, refresh_token_client_id = ?3 WHERE subject = ?1"
            ).run([.text(subject), encryptedToken.map { .blob($0) } ?? .null, clientID.map { .text($0) } ?? .null]) == 1
        }
    }

    public func rememberNonce(_ hash: [UInt8], until: Date, now: Date) throws(StorageError) -> Bool {
        try withConnection { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) -> Bool in
                try connection.statement("DELETE FROM apple_nonces WHERE expires_at <= ?1").run([.date(now)])
                return try connection.statement(
                    "INSERT OR IGNORE INTO apple_nonces (hash, expires_at) VALUES (?1, ?2)"
                ).run([.blob(hash), .date(until)]) == 1
            }
        }
    }

    public func enqueueRevocation(token encryptedToken: [UInt8], clientID: String, notBefore: Date) throws(StorageError) -> Int64 {
        let ids = try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                """
                INSERT INTO apple_revocations (encrypted_token, client_id, not_before, attempts) VALUES (?1, ?2, ?3, 0)
                RETURNING id
                """
            ).run([.blob(encryptedToken), .text(clientID), .date(notBefore)]) { row throws(SQLiteError) in row.integer(0) }
        }
        guard let id = ids.first else { throw .unavailable("the revocation was not queued") }
        return id
    }

    public func dueRevocations(now: Date, limit: Int) throws(StorageError) -> [AppleRevocationRecord] {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                """
                SELECT id, encrypted_token, client_id, not_before, attempts FROM apple_revocations
                WHERE not_before <= ?1 ORDER BY not_before, id LIMIT ?2
                """
            ).run([.date(now), .integer(Int64(max(0, limit)))]) { row throws(SQLiteError) in
                AppleRevocationRecord(
                    id: row.integer(0),
                    encryptedToken: row.blob(1),
                    clientID: row.text(2),
                    notBefore: row.date(3),
                    attempts: Int(row.integer(4))
                )
            }
        }
    }

    public func completeRevocation(id: Int64) throws(StorageError) {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM apple_revocations WHERE id = ?1").run([.integer(id)])
        }
    }

    public func rescheduleRevocation(id: Int64, notBefore: Date) throws(StorageError) {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                "UPDATE apple_revocations SET not_before = ?2, attempts = attempts + 1 WHERE id = ?1"
            ).run([.integer(id), .date(notBefore)])
        }
    }

    static let appleIdentityColumns = """
        subject, user_id, email, email_verified, is_private_email, email_disabled, real_user_status, transfer_subject,
        encrypted_refresh_token, refresh_token_client_id, created_at
        """

    private static func insert(_ identity: AppleIdentityRecord, into connection: SQLiteConnection) throws(SQLiteError) {
        try connection.statement(
            """
            INSERT INTO apple_identities (\(appleIdentityColumns))
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """
        ).run([
            .text(identity.subject), .blob(identity.userID), identity.email.map { .text($0) } ?? .null,
            .bool(identity.emailVerified), .bool(identity.isPrivateEmail), .bool(identity.emailDisabled),
            identity.realUserStatus.map { .integer(Int64($0)) } ?? .null, identity.transferSubject.map { .text($0) } ?? .null,
            identity.encryptedRefreshToken.map { .blob($0) } ?? .null, identity.refreshTokenClientID.map { .text($0) } ?? .null,
            .date(identity.createdAt),
        ])
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
}
