import Foundation
import Storage

extension PostgresStore {
    public func createUser(_ user: UserRecord, appleIdentity identity: AppleIdentityRecord) throws(StorageError) {
        guard identity.userID == user.id else { throw .notFound("the Apple identity must belong to the new user") }
        try withConnection { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) in
                try PostgresStore.insert(user, into: connection)
                try PostgresStore.insert(identity, into: connection)
            }
        }
    }

    public func linkAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError) {
        try withConnection { connection throws(PostgresError) in
            try PostgresStore.insert(identity, into: connection)
        }
    }

    public func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord? {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(PostgresStore.appleIdentityColumns) FROM apple_identities WHERE subject = $1",
                [.text(subject)],
                row: PostgresStore.appleIdentityRecord
            ).first
        }
    }

    public func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord] {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(PostgresStore.appleIdentityColumns) FROM apple_identities WHERE user_id = $1 ORDER BY created_at, subject",
                [.bytea(userID)],
                row: PostgresStore.appleIdentityRecord
            )
        }
    }

    public func unlinkAppleIdentity(subject: String) throws(StorageError) -> Bool {
        try withConnection { connection throws(PostgresError) in
            try connection.run("DELETE FROM apple_identities WHERE subject = $1", [.text(subject)]) == 1
        }
    }

    public func updateAppleEmailState(subject: String, emailDisabled: Bool) throws(StorageError) -> Bool {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "UPDATE apple_identities SET email_disabled = $2 WHERE subject = $1",
                [.text(subject), .boolean(emailDisabled)]
            ) == 1
        }
    }

    public func setAppleRefreshToken(subject: String, encryptedToken: [UInt8]?, clientID: String?) throws(StorageError) -> Bool {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "UPDATE apple_identities SET encrypted_refresh_token = $2, refresh_token_client_id = $3 WHERE subject = $1",
                [.text(subject), .optional(encryptedToken, PostgresValue.bytea), .optional(clientID, PostgresValue.text)]
            ) == 1
        }
    }

    public func rememberNonce(_ hash: [UInt8], until: Date, now: Date) throws(StorageError) -> Bool {
        try withConnection { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) -> Bool in
                try connection.run("DELETE FROM apple_nonces WHERE expires_at <= $1", [.date(now)])
                // A concurrent insert of the same hash on another node waits for this one's commit, then does nothing.
                return try connection.run(
                    "INSERT INTO apple_nonces (hash, expires_at) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING",
                    [.bytea(hash), .date(until)]
                ) == 1
            }
        }
    }

    public func enqueueRevocation(token encryptedToken: [UInt8], clientID: String, notBefore: Date) throws(StorageError) -> Int64 {
        let ids = try withConnection { connection throws(PostgresError) in
            try connection.run(
                """
                INSERT INTO apple_revocations (encrypted_token, client_id, not_before, attempts) VALUES ($1, $2, $3, 0)
                RETURNING id
                """,
                [.bytea(encryptedToken), .text(clientID), .date(notBefore)]
            ) { row throws(PostgresError) in try row.integer(0) }
        }
        guard let id = ids.first else { throw .unavailable("the revocation was not queued") }
        return id
    }

    public func dueRevocations(now: Date, limit: Int) throws(StorageError) -> [AppleRevocationRecord] {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                """
                SELECT id, encrypted_token, client_id, not_before, attempts FROM apple_revocations
                WHERE not_before <= $1 ORDER BY not_before, id LIMIT $2
                """,
                [.date(now), .bigint(Int64(max(0, limit)))]
            ) { row throws(PostgresError) in
                AppleRevocationRecord(
                    id: try row.integer(0),
                    encryptedToken: row.bytes(1),
                    clientID: row.text(2),
                    notBefore: try row.date(3),
                    attempts: Int(try row.integer(4))
                )
            }
        }
    }

    public func completeRevocation(id: Int64) throws(StorageError) {
        try withConnection { connection throws(PostgresError) in
            try connection.run("DELETE FROM apple_revocations WHERE id = $1", [.bigint(id)])
        }
    }

    public func rescheduleRevocation(id: Int64, notBefore: Date) throws(StorageError) {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "UPDATE apple_revocations SET not_before = $2, attempts = attempts + 1 WHERE id = $1",
                [.bigint(id), .date(notBefore)]
            )
        }
    }

    static let appleIdentityColumns = """
        subject, user_id, email, email_verified, is_private_email, email_disabled, real_user_status, transfer_subject,
        encrypted_refresh_token, refresh_token_client_id, created_at
        """

    static func insert(_ identity: AppleIdentityRecord, into connection: PostgresConnection) throws(PostgresError) {
        try connection.run(
            """
            INSERT INTO apple_identities (\(appleIdentityColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            """,
            [
                .text(identity.subject), .bytea(identity.userID), .optional(identity.email, PostgresValue.text),
                .boolean(identity.emailVerified), .boolean(identity.isPrivateEmail), .boolean(identity.emailDisabled),
                .optional(identity.realUserStatus) { .bigint(Int64($0)) }, .optional(identity.transferSubject, PostgresValue.text),
                .optional(identity.encryptedRefreshToken, PostgresValue.bytea),
                .optional(identity.refreshTokenClientID, PostgresValue.text), .date(identity.createdAt),
            ]
        )
    }

    static func appleIdentityRecord(_ row: PostgresRow) throws(PostgresError) -> AppleIdentityRecord {
        AppleIdentityRecord(
            subject: row.text(0),
            userID: row.bytes(1),
            email: row.isNull(2) ? nil : row.text(2),
            emailVerified: try row.boolean(3),
            isPrivateEmail: try row.boolean(4),
            emailDisabled: try row.boolean(5),
            realUserStatus: row.isNull(6) ? nil : Int(try row.integer(6)),
            transferSubject: row.isNull(7) ? nil : row.text(7),
            encryptedRefreshToken: row.isNull(8) ? nil : row.bytes(8),
            refreshTokenClientID: row.isNull(9) ? nil : row.text(9),
            createdAt: try row.date(10)
        )
    }
}
