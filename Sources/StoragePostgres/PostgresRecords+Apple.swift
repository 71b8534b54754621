import Foundation
import Storage

extension PostgresRecords {
    static let appleIdentityColumns = """
        subject, user_id, email, email_verified, is_private_email, email_disabled, real_user_status, transfer_subject, \
        encrypted_refresh_token, refresh_token_client_id, created_at
        """
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

    func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord] {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.appleIdentityColumns) FROM apple_identities WHERE user_id = $1 ORDER BY created_at, subject",
                [.bytea(userID)],
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

    func deleteAppleIdentity(subject: String) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM apple_identities WHERE subject = $1", [.text(subject)]) == 1
        }
    }

    func updateAppleEmailState(subject: String, emailDisabled: Bool) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run("UPDATE apple_identities SET email_disabled = $2 WHERE subject = $1", [.text(subject), .boolean(emailDisabled)]) == 1
        }
    }

    func setAppleRefreshToken(subject: String, encryptedToken: [UInt8]?, clientID: String?) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run(
                "UPDATE apple_identities SET encrypted_refresh_token = $2, refresh_token_client_id = $3 WHERE subject = $1",
                [.text(subject), .optional(encryptedToken, PostgresValue.bytea), .optional(clientID, PostgresValue.text)]
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
            (.boolean(identity.emailDisabled), "boolean"), (.optional(identity.realUserStatus) { .bigint(Int64($0)) }, "int8"),
            (.optional(identity.transferSubject, PostgresValue.text), "text"),
            (.optional(identity.encryptedRefreshToken, PostgresValue.bytea), "bytea"),
            (.optional(identity.refreshTokenClientID, PostgresValue.text), "text"), (.date(identity.createdAt), "float8"),
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
            realUserStatus: row.isNull(6) ? nil : Int(try row.integer(6)),
            transferSubject: row.isNull(7) ? nil : row.text(7),
            encryptedRefreshToken: row.isNull(8) ? nil : row.bytes(8),
            refreshTokenClientID: row.isNull(9) ? nil : row.text(9),
            createdAt: try row.date(10)
        )
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
