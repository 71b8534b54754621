import Foundation
import Storage

extension SQLiteRecords {
    static let federatedIdentityColumns = "issuer, subject, user_id, provider, email, email_verified, created_at, last_sign_in_at"

    func federatedIdentity(issuer: String, subject: String) throws(StorageError) -> FederatedIdentityRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.federatedIdentityColumns) FROM federated_identities WHERE issuer = ?1 AND subject = ?2")
                .run([.text(issuer), .text(subject)], row: Self.federatedIdentityRecord).first
        }
    }

    /// Text compares byte-wise (the BINARY collation).
    func federatedIdentities(userID: [UInt8]) throws(StorageError) -> [FederatedIdentityRecord] {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(Self.federatedIdentityColumns) FROM federated_identities WHERE user_id = ?1 ORDER BY created_at, issuer, subject"
            ).run([.blob(userID)], row: Self.federatedIdentityRecord)
        }
    }

    /// Inserts nothing when the identity is taken, so that a taken one is reported as such before a missing user.
    func insertFederatedIdentity(_ identity: FederatedIdentityRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try identity.validate() }
        let inserted = try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                INSERT INTO federated_identities (\(Self.federatedIdentityColumns))
                SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8
                WHERE NOT EXISTS (SELECT 1 FROM federated_identities WHERE issuer = ?1 AND subject = ?2)
                """
            ).run(Self.federatedIdentityValues(identity))
        }
        guard inserted == 1 else {
            try validate { () throws(StorageError) in throw StorageError(.federatedIdentityTaken, "the identity is already linked to an account") }
            return
        }
    }

    func updateFederatedIdentity(_ identity: FederatedIdentityRecord) throws(StorageError) -> Bool {
        try validate { () throws(StorageError) in try identity.validate() }
        return try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                UPDATE federated_identities SET user_id = ?3, provider = ?4, email = ?5, email_verified = ?6, created_at = ?7,
                    last_sign_in_at = ?8
                WHERE issuer = ?1 AND subject = ?2
                """
            ).run(Self.federatedIdentityValues(identity)) == 1
        }
    }

    func deleteFederatedIdentity(issuer: String, subject: String) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM federated_identities WHERE issuer = ?1 AND subject = ?2").run([.text(issuer), .text(subject)]) == 1
        }
    }

    func moveFederatedIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try run { connection throws(SQLiteError) in
            try connection.statement("UPDATE federated_identities SET user_id = ?2 WHERE user_id = ?1").run([.blob(userID), .blob(targetUserID)])
        }
    }

    /// The values of `federatedIdentityColumns`, as ?1 to ?8.
    static func federatedIdentityValues(_ identity: FederatedIdentityRecord) -> [SQLiteValue] {
        [
            .text(identity.issuer), .text(identity.subject), .blob(identity.userID), .text(identity.provider),
            identity.email.map { .text($0) } ?? .null, .bool(identity.emailVerified), .date(identity.createdAt),
            identity.lastSignInAt.map { .date($0) } ?? .null,
        ]
    }

    static func federatedIdentityRecord(_ row: SQLiteRow) throws(SQLiteError) -> FederatedIdentityRecord {
        FederatedIdentityRecord(
            issuer: row.text(0),
            subject: row.text(1),
            userID: row.blob(2),
            provider: row.text(3),
            email: row.isNull(4) ? nil : row.text(4),
            emailVerified: row.bool(5),
            createdAt: row.date(6),
            lastSignInAt: row.isNull(7) ? nil : row.date(7)
        )
    }
}
